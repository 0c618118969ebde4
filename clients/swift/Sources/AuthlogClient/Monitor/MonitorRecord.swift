import Foundation

/// What the monitor keeps between launches: the newest checkpoint it verified, the split-view alarm that stands
/// until the app clears it, and the events still waiting for their receipt, so that an app killed and started
/// again checks them.
public struct MonitorRecord: Sendable, Hashable, Codable {
    /// The newest checkpoint note the device verified, verbatim; `nil` before the first.
    public var checkpoint: String?
    /// The alarm raised and not yet cleared by the app.
    public var alarm: SplitViewAlarm?
    /// The events waiting for their receipt when the record was written, oldest first: at most the queue's bound
    /// (``LogMonitor/Configuration/maximumQueued``) and ``maximumQueueBytes`` of JSON.
    public var queue: [QueuedEvent]

    /// The most bytes of JSON the queued events take in a record; the newest beyond it are not written (they are
    /// still checked while the app runs).
    public static let maximumQueueBytes = 256 * 1024

    /// Creates a record.
    public init(checkpoint: String? = nil, alarm: SplitViewAlarm? = nil, queue: [QueuedEvent] = []) {
        self.checkpoint = checkpoint
        self.alarm = alarm
        self.queue = queue
    }

    enum CodingKeys: String, CodingKey {
        case checkpoint
        case alarm
        case queue
    }

    /// Reads a record; one written before records held the queue has an empty one.
    /// - Throws: `DecodingError` for a member of the wrong shape.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.checkpoint = try container.decodeIfPresent(String.self, forKey: .checkpoint)
        self.alarm = try container.decodeIfPresent(SplitViewAlarm.self, forKey: .alarm)
        self.queue = try container.decodeIfPresent([QueuedEvent].self, forKey: .queue) ?? []
    }
}

extension MonitorRecord {
    /// One event waiting for its receipt, as the record keeps it: the monitor's own bookkeeping, which a
    /// ``CheckpointStore`` stores as it is given.
    public struct QueuedEvent: Sendable, Hashable, Codable {
        /// The event id (a lowercase UUID).
        var eventID: String
        /// The user the answer that named it was for.
        var userID: String
        /// The sessions it may name; `nil` for any of the user's.
        var sessions: [String]?
        /// When the request that named it was sent (or the time the activity listed).
        var requestedAt: Date
        /// The position the activity listed, when it came from the activity.
        var listedPosition: Int64?
        /// The event types the call appends; nil for any (and in records written before types were kept).
        var types: [String]?
        /// Where it stood.
        var stage: Stage
        /// When it may be asked for next, by the wall clock (the monitor's own clock does not survive a restart).
        var nextTryAt: Date
        /// How many answers did not give it.
        var notFoundTries: Int
        /// How many answers for it in a row were bad.
        var badAnswers: Int

        /// Where a queued event stood: the ``PendingReason``s that outlive a launch. A retry after a failed round
        /// is kept as such and comes back queued (its error is not kept).
        enum Stage: Sendable, Hashable, Codable {
            case queued
            case notCheckpointed
            case belowQuorum(cosigned: [String])
            case notFoundYet(tries: Int)
            case retrying
        }

        enum CodingKeys: String, CodingKey {
            case eventID = "event_id"
            case userID = "user_id"
            case sessions
            case requestedAt = "requested_at"
            case listedPosition = "listed_position"
            case types
            case stage
            case nextTryAt = "next_try_at"
            case notFoundTries = "not_found_tries"
            case badAnswers = "bad_answers"
        }
    }
}
