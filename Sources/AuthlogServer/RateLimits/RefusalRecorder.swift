import AuthlogAccounts
public import AuthlogCore
import Foundation
import Synchronization

/// Counts every refused request in memory and turns the counts into a few events (``RefusalTally``): rate-limit
/// refusals as `ratelimit.exceeded`, requests refused below the router as `request.refused`, and refused or
/// anonymous reads of the audit routes as `audit.accessed` with a count. Nothing here writes on the refused
/// request's path: ``flush(into:)`` runs from a background service every second and at shutdown.
public final class RefusalRecorder: Sendable {
    /// A rate-limit key: what the limit counts by, the key, and the route group.
    struct LimitKey: Hashable, Sendable {
        let scope: LimitScope
        let key: String
        let route: String
    }

    /// An audit-route refusal key: the address and the actor the request claimed.
    struct AccessKey: Hashable, Sendable {
        let address: String
        let actor: String
    }

    private struct State: Sendable {
        var limits: RefusalTally<LimitKey>
        var requests: RefusalTally<String>
        var access: RefusalTally<AccessKey>
        var written = 0
        var refused = 0
        /// Events taken out of the tallies whose append failed, retried at the next flush (at most
        /// `maximumUnwritten`; older ones are dropped and counted in `lost`).
        var unwritten: [EventEnvelope] = []
        var lost = 0
    }

    /// The policy whose limits the events name.
    let policy: RateLimitPolicy
    private let state: Mutex<State>

    /// A recorder summing refusals over `policy`'s window.
    public init(policy: RateLimitPolicy) {
        self.policy = policy
        let window = policy.windowSeconds
        self.state = Mutex(
            State(
                limits: RefusalTally(
                    windowSeconds: window,
                    overflowKey: LimitKey(scope: .address, key: "*", route: "*")
                ),
                requests: RefusalTally(windowSeconds: window, overflowKey: "*"),
                access: RefusalTally(windowSeconds: window, overflowKey: AccessKey(address: "*", actor: "*"))
            )
        )
    }

    /// Counts one request refused by a limit of `scope` on `route` for `key`.
    func noteRateLimited(scope: LimitScope, key: String, route: String, requestID: String) {
        let now = Timestamp.now()
        self.state.withLock {
            $0.refused += 1
            $0.limits.note(
                LimitKey(scope: scope, key: key, route: route),
                kind: "rate_limited",
                detail: requestID,
                at: now
            )
        }
    }

    /// Counts one request or connection from `address` refused before any route ran, by `kind` (the answer's
    /// code, or `per_address_cap`).
    func noteRequestRefused(address: String, kind: String) {
        let now = Timestamp.now()
        self.state.withLock {
            $0.refused += 1
            $0.requests.note(address, kind: kind, at: now)
        }
    }

    /// Counts one refused or anonymous read of an audit route: `kind` is the refusal reason
    /// (``APIKeyRefusal``) or `anonymous_read`, `query` what the first request asked.
    func noteAccess(address: String, actor: String, kind: String, query: String) {
        let now = Timestamp.now()
        self.state.withLock {
            $0.refused += 1
            $0.access.note(AccessKey(address: address, actor: actor), kind: kind, detail: query, at: now)
        }
    }

    /// The most events kept for a retry while the database cannot be written.
    static let maximumUnwritten = 10_000

    /// How many refusals were counted, how many events recorded them so far, and how many events were dropped
    /// because the database stayed unwritable past ``maximumUnwritten``.
    public var totals: (refused: Int, events: Int, lost: Int) {
        self.state.withLock { ($0.refused, $0.written, $0.lost) }
    }

    /// The events that record what is ready: first refusals and ended windows (every open window when
    /// `everything`, at shutdown). Taken out of the tallies: the caller must append them.
    func takeEvents(everything: Bool = false) throws -> [EventEnvelope] {
        let now = Timestamp.now()
        let (limits, requests, access) = self.state.withLock { state in
            (
                state.limits.take(at: now, everything: everything),
                state.requests.take(at: now, everything: everything),
                state.access.take(at: now, everything: everything)
            )
        }
        let window = self.policy.windowSeconds
        var events: [EventEnvelope] = []
        for summary in limits {
            let limit = self.limit(of: summary.key)
            let metadata = RequestMetadata(
                ip: summary.key.scope == .address ? IPAddress(summary.key.key) : nil,
                requestID: summary.isFirst ? summary.detail : ""
            )
            events.append(
                try metadata.envelope(
                    stream: StreamName(category: "ratelimit", id: summary.key.route),
                    outcome: .failure,
                    reason: "rate_limited",
                    at: summary.lastAt,
                    data: RateLimitExceeded(
                        scope: summary.key.scope,
                        key: summary.key.key,
                        route: summary.key.route,
                        perSecond: limit.perSecond,
                        burst: limit.burst,
                        count: summary.count,
                        firstAt: summary.firstAt.description,
                        lastAt: summary.lastAt.description,
                        windowSeconds: window
                    )
                )
            )
        }
        for summary in requests {
            events.append(
                try RequestMetadata(ip: IPAddress(summary.key), requestID: "").envelope(
                    stream: StreamName(category: "ratelimit", id: "edge"),
                    outcome: .failure,
                    reason: summary.mainKind,
                    at: summary.lastAt,
                    data: RequestRefused(
                        counts: summary.counts,
                        firstAt: summary.firstAt.description,
                        lastAt: summary.lastAt.description,
                        windowSeconds: window
                    )
                )
            )
        }
        for summary in access {
            var payload = AuditAccessed(actor: summary.key.actor, query: summary.detail)
            payload.count = summary.count
            payload.firstAt = summary.firstAt.description
            payload.lastAt = summary.lastAt.description
            payload.windowSeconds = window
            payload.reasons = summary.counts
            let anonymousReadsOnly = summary.counts.keys.allSatisfy { $0 == "anonymous_read" }
            events.append(
                try RequestMetadata(ip: IPAddress(summary.key.address), requestID: "").envelope(
                    stream: StreamName(category: "audit", id: "access"),
                    outcome: anonymousReadsOnly ? .success : .failure,
                    reason: anonymousReadsOnly ? nil : summary.mainKind,
                    at: summary.lastAt,
                    data: payload
                )
            )
        }
        return events
    }

    /// Appends what is ready to `store`, with the events an earlier flush could not append. Events whose
    /// append fails are kept for the next flush, so a database outage delays the record instead of losing
    /// it; the counts in `/metrics` never wait.
    /// - Throws: the first error the store gave, after keeping what it refused.
    public func flush(into store: any EventStore, everything: Bool = false) async throws {
        let taken = try self.takeEvents(everything: everything)
        let events = self.state.withLock { state in
            defer { state.unwritten = [] }
            return state.unwritten + taken
        }
        guard !events.isEmpty else { return }
        let results = await store.appendEach(events.map { AppendCommand($0, expecting: .any) })
        var failed: [EventEnvelope] = []
        var firstError: (any Error)?
        for (event, result) in zip(events, results) {
            if case .failure(let error) = result {
                failed.append(event)
                firstError = firstError ?? error
            }
        }
        self.state.withLock { state in
            state.written += events.count - failed.count
            state.unwritten = failed + state.unwritten
            let excess = state.unwritten.count - Self.maximumUnwritten
            if excess > 0 {
                state.unwritten.removeFirst(excess)
                state.lost += excess
            }
        }
        if let firstError { throw firstError }
    }

    /// The recorder's counters in Prometheus text: refusals counted, events written, events dropped.
    func metricLines() -> [String] {
        let totals = self.totals
        return ServerMetrics.counter(
            "authlog_refusals_counted_total",
            help:
                "Requests counted for the log's aggregated events: refusals (rate limits, the edge, keyless audit routes) and anonymous log reads.",
            samples: [([], totals.refused)]
        )
            + ServerMetrics.counter(
                "authlog_refusal_events_written_total",
                help: "Events that recorded those refusals (a window's first and its summary).",
                samples: [([], totals.events)]
            )
            + ServerMetrics.counter(
                "authlog_refusal_events_lost_total",
                help: "Refusal events dropped while the database stayed unwritable past 10,000 waiting.",
                samples: [([], totals.lost)]
            )
    }

    private func limit(of key: LimitKey) -> RateLimit {
        switch key.scope {
        case .address:
            return LimitedRoute(rawValue: key.route).flatMap { self.policy.perAddress[$0] }
                ?? RateLimit(perSecond: 0, burst: 0)
        case .family: return self.policy.perFamily
        case .apiKey: return self.policy.perAPIKey
        }
    }
}
