import AuthlogCore

/// The outages of one process's writes to the log, as a value with no clock of its own (callers pass the
/// time, so the rules are tested without waiting).
///
/// An outage opens with the first write that fails because PostgreSQL cannot take it (unreachable, out of
/// disk) or the first request answered 503 `database_unavailable`, and counts the requests refused while it
/// lasts. It ends once writes have succeeded for ``settleSeconds`` with no failure between: a disk that is
/// nearly full lets some writes through while others fail, and one outage must not be cut into many. Its
/// end is the first of those successes. Each ended outage is handed out once to be recorded
/// (``takeRecordable(at:)``).
///
/// With no write attempted for ``quietSeconds`` (a load balancer stopped sending traffic to a process that is
/// not ready), nothing would show that writing works again: the open outage is then handed out as ending now
/// (the probe), and writing its event is that write. If it fails, ``notRecorded(_:)`` puts it back. So the
/// database sees at most one attempt per pass while it refuses writes, and each outage is one event.
struct WriteOutages: Sendable, Equatable {
    /// How long writes must succeed without a failure before an outage is over.
    static let settleSeconds: Int64 = 2
    /// How long without any write attempted before recording the outage is tried as the probe.
    static let quietSeconds: Int64 = 2

    /// One outage: when it started and ended, what it refused, and what PostgreSQL said.
    struct Outage: Sendable, Equatable {
        /// The first failed write or refused request.
        var startedAt: Timestamp
        /// The first write that succeeded for good after it; nil while it lasts.
        var endedAt: Timestamp?
        /// The requests answered 503 meanwhile, by route.
        var refusedRoutes: [String: Int] = [:]
        /// The kind of failure, as the store names it for the log (`server_error 53100`, `connection_failed`).
        var error: String?

        /// Every request refused meanwhile.
        var requestsRefused: Int { self.refusedRoutes.values.reduce(0, +) }

        /// `other`'s refusals counted into this outage, which then starts at the earlier of both.
        mutating func absorb(_ other: Outage) {
            if other.startedAt < self.startedAt {
                self.startedAt = other.startedAt
                self.error = other.error ?? self.error
            } else if self.error == nil {
                self.error = other.error
            }
            self.refusedRoutes.merge(other.refusedRoutes, uniquingKeysWith: +)
        }
    }

    /// The outage in progress that nothing is trying to record.
    private(set) var open: Outage?
    /// The first write that succeeded since the open outage's last failure.
    private(set) var recoveringSince: Timestamp?
    /// The outage in progress whose event is being written as the probe.
    private(set) var probing: Outage?
    /// Ended outages waiting to be recorded, oldest first.
    private(set) var ended: [Outage] = []
    /// The last write attempted, successful or not, or request refused.
    private var lastAttemptAt: Timestamp?

    /// Whether writing is failing now: an outage is open and no write has succeeded since its last failure, or
    /// its event is being tried as the probe.
    var isFailing: Bool { (self.open != nil && self.recoveringSince == nil) || self.probing != nil }

    /// The outage in progress as far as it is known: the one being probed with what was refused since.
    var current: Outage? {
        guard var probing = self.probing else { return self.open }
        if let open = self.open { probing.absorb(open) }
        return probing
    }

    /// A write failed because PostgreSQL could not take it (`error`, the kind of failure): opens an outage, or
    /// keeps one from ending.
    mutating func writeFailed(_ error: String, at now: Timestamp) {
        var outage = self.open ?? Outage(startedAt: now)
        if outage.error == nil { outage.error = error }
        self.open = outage
        self.recoveringSince = nil
        self.lastAttemptAt = now
    }

    /// A request on `route` was answered 503 `database_unavailable` (`error`, the kind of failure when known):
    /// counts it, opening an outage if none is in progress. It does not stop one from ending: its answer may
    /// come after a write already succeeded (a request that was in flight when the database came back), and
    /// the write path's own failures say whether writing still fails.
    mutating func requestRefused(route: String, error: String?, at now: Timestamp) {
        var outage = self.open ?? Outage(startedAt: now)
        outage.refusedRoutes[route, default: 0] += 1
        if outage.error == nil { outage.error = error }
        self.open = outage
        self.lastAttemptAt = now
    }

    /// A write succeeded: the open outage, if any, may be ending.
    mutating func writeSucceeded(at now: Timestamp) {
        self.lastAttemptAt = now
        if self.open != nil, self.recoveringSince == nil { self.recoveringSince = now }
    }

    /// The outages to record at `now`: every ended one (an open outage ends once its writes have succeeded for
    /// ``settleSeconds``), and, after ``quietSeconds`` without a write, the open one as ending now (the probe:
    /// it still counts as failing until it is recorded). Each is the caller's to record, then to report with
    /// ``recorded(_:)`` or ``notRecorded(_:)``.
    mutating func takeRecordable(at now: Timestamp) -> [Outage] {
        if var outage = self.open, let since = self.recoveringSince, since <= now.adding(seconds: -Self.settleSeconds) {
            outage.endedAt = since
            self.ended.append(outage)
            self.open = nil
            self.recoveringSince = nil
        }
        var outages = self.ended
        self.ended = []
        let quietSince = now.adding(seconds: -Self.quietSeconds)
        if self.probing == nil, self.recoveringSince == nil, var probe = self.open,
            self.lastAttemptAt.map({ $0 <= quietSince }) ?? true
        {
            probe.endedAt = now
            self.probing = probe
            self.open = nil
            outages.append(probe)
        }
        return outages
    }

    /// `outages` were recorded: the probe among them, if any, shows that writing works again.
    mutating func recorded(_ outages: [Outage]) {
        if let probing = self.probing, outages.contains(probing) { self.probing = nil }
    }

    /// `outages` could not be recorded. While writes fail again (an outage is open: the failed append opened
    /// it), they were not over: they go back into it, which then starts at the earliest. Otherwise (the append
    /// failed for another reason) the probe is open again and ended ones wait for the next pass as they are.
    mutating func notRecorded(_ outages: [Outage]) {
        for outage in outages {
            let wasProbe = self.probing == outage
            if wasProbe { self.probing = nil }
            var resumed = outage
            resumed.endedAt = nil
            if var open = self.open {
                open.absorb(resumed)
                self.open = open
            } else if wasProbe {
                self.open = resumed
            } else {
                self.ended.append(outage)
            }
        }
        self.ended.sort { $0.startedAt < $1.startedAt }
    }
}
