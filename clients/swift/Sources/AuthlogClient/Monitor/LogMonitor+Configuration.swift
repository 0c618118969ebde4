public import Foundation

extension LogMonitor {
    /// The pins, where the monitor keeps its checkpoint, and its bounds. The defaults suit an app.
    public struct Configuration: Sendable {
        /// The log and witnesses the app trusts.
        public var pins: LogPins
        /// Where the kept checkpoint and a standing alarm survive launches.
        public var checkpointStore: any CheckpointStore
        /// Where a split-view alarm is posted (JSON, ``SplitViewAlarm``'s members), or `nil` for nowhere.
        public var alarmReportURL: URL?
        /// How far an event's time may be from the request that named it, either way, in seconds.
        public var timeWindow: TimeInterval
        /// How long after an answer named an event its receipt is first asked for. It is the batching window:
        /// the events named meanwhile go in the same request, with one checkpoint note and one consistency proof
        /// for them all. ``defaultFirstCheckDelay`` (4 hours) by default; at least a minute, since authlog signs a
        /// checkpoint every 60 s by default (asked earlier, the answer says when to ask again).
        public var firstCheckDelay: Duration
        /// How long to wait before asking again for a pending receipt when the answer gave no `Retry-After`.
        public var pendingRetryDelay: Duration
        /// The wait after a failed round; it doubles with each failure in a row, up to ``maximumBackoff``.
        public var retryDelay: Duration
        /// The longest wait after failures, and the longest `Retry-After` honoured.
        public var maximumBackoff: Duration
        /// How many answers may leave an event out before it is refused as not found.
        public var notFoundTries: Int
        /// How many bad answers in a row an event may get before it is refused.
        public var badAnswerTries: Int
        /// The most events waiting; a full queue takes no new id and says so (``MonitorEvent/queueFull(dropped:)``).
        public var maximumQueued: Int
        /// The most settled outcomes kept; the oldest verified ones are forgotten first.
        public var maximumOutcomes: Int
        /// The largest answer body read, in bytes.
        public var maximumAnswerBytes: Int
        /// The most receipts asked for in one request (at most 64).
        public var batchSize: Int
        /// How many times a failed alarm post is tried again.
        public var alarmReportRetries: Int
        /// Each token refresh's events are checked with a chance of one in this many, drawn for each refresh
        /// from the system's secure random generator, so that the server cannot tell in advance which refreshes
        /// a device will check: 2 (``defaultRefreshSampling``) checks about half, 1 every refresh, 0 none.
        /// Sign-ins, logouts, revocations, deletions and every other event are always checked, and so is every
        /// checkpoint shown (consistency). A server that leaves a device's refresh out of the log is seen with a
        /// chance of 1 in n each time, so one that leaves out k refreshes is caught with a chance of
        /// 1 − (1 − 1/n)^k (for 2: 99.9 % once it leaves out 10). Each refresh checked costs its event's bytes
        /// and about log2(the log's events between two refreshes) proof hashes (an app refreshing every 15
        /// minutes names 96 a day); `authlog-bench client` prints the bytes a day for each setting.
        public var refreshSampling: Int

        /// The default ``refreshSampling``: 2, each refresh checked with a chance of one half. Checking every
        /// refresh of an app that refreshes every 15 minutes fetches 60–70 kB a day from a log of a million
        /// events growing by 10,000–100,000 a day, most of it proof hashes that no encoding shrinks.
        public static let defaultRefreshSampling = 2

        /// The default ``firstCheckDelay``: 4 hours. An app that refreshes every 15 minutes then asks six times a
        /// day, each time for about 16 events. A round per refresh instead (60 s) costs a request's head, a note and
        /// a consistency proof 96 times a day, several times the receipts themselves (`authlog-bench client`).
        /// A split view is still seen within the window; an app that shows its activity verifies what it shows at
        /// once (``AuthlogClient/checkedActivity(after:limit:)``).
        public static let defaultFirstCheckDelay = Duration.seconds(4 * 3_600)

        /// Creates a configuration.
        public init(
            pins: LogPins,
            checkpointStore: any CheckpointStore = InMemoryCheckpointStore(),
            alarmReportURL: URL? = nil,
            timeWindow: TimeInterval = 600,
            firstCheckDelay: Duration = Self.defaultFirstCheckDelay,
            pendingRetryDelay: Duration = .seconds(60),
            retryDelay: Duration = .seconds(2),
            maximumBackoff: Duration = .seconds(3_600),
            notFoundTries: Int = 3,
            badAnswerTries: Int = 5,
            maximumQueued: Int = 256,
            maximumOutcomes: Int = 1_024,
            maximumAnswerBytes: Int = 1 << 20,
            batchSize: Int = 64,
            alarmReportRetries: Int = 2,
            refreshSampling: Int = Self.defaultRefreshSampling
        ) {
            self.pins = pins
            self.checkpointStore = checkpointStore
            self.alarmReportURL = alarmReportURL
            self.timeWindow = timeWindow
            self.firstCheckDelay = firstCheckDelay
            self.pendingRetryDelay = pendingRetryDelay
            self.retryDelay = retryDelay
            self.maximumBackoff = maximumBackoff
            self.notFoundTries = notFoundTries
            self.badAnswerTries = badAnswerTries
            self.maximumQueued = maximumQueued
            self.maximumOutcomes = maximumOutcomes
            self.maximumAnswerBytes = maximumAnswerBytes
            self.batchSize = batchSize
            self.alarmReportRetries = alarmReportRetries
            self.refreshSampling = refreshSampling
        }

        /// The configuration with every number inside its bounds, so that no configured value can trap or make
        /// the monitor unbounded.
        var bounded: Configuration {
            var copy = self
            let day = Duration.seconds(86_400)
            copy.timeWindow = self.timeWindow.isFinite ? min(max(0, self.timeWindow), 86_400) : 600
            copy.firstCheckDelay = min(max(.zero, self.firstCheckDelay), day)
            copy.pendingRetryDelay = min(max(.milliseconds(10), self.pendingRetryDelay), day)
            copy.retryDelay = min(max(.milliseconds(10), self.retryDelay), day)
            copy.maximumBackoff = min(max(copy.retryDelay, self.maximumBackoff), day)
            copy.notFoundTries = min(max(1, self.notFoundTries), 100)
            copy.badAnswerTries = min(max(1, self.badAnswerTries), 100)
            copy.maximumQueued = min(max(1, self.maximumQueued), 100_000)
            copy.maximumOutcomes = min(max(1, self.maximumOutcomes), 100_000)
            copy.maximumAnswerBytes = min(max(4_096, self.maximumAnswerBytes), 64 << 20)
            copy.batchSize = min(max(1, self.batchSize), ReceiptsAnswer.maximumReceipts)
            copy.alarmReportRetries = min(max(0, self.alarmReportRetries), 10)
            copy.refreshSampling = min(max(0, self.refreshSampling), 1_000_000)
            return copy
        }
    }
}
