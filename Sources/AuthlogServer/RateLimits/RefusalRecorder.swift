import AuthlogAccounts
public import AuthlogCore
import Foundation
import Synchronization

/// Counts every refused request in memory and turns the counts into a few events (``RefusalTally``): rate-limit
/// refusals as `ratelimit.exceeded`, requests refused below the router as `request.refused`, refused or
/// anonymous reads of the audit routes as `audit.accessed` with a count, and refused tokens (``TokenUseRefusal``:
/// a DPoP proof refused, an access token of an ended session) as `token.access_refused` on their session (one
/// that names no session, such as an access token missing or not valid, counts as `request.refused` of its
/// address). Nothing here writes on the refused
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

    /// What the window's first refused use of a session's token said.
    struct TokenUse: Sendable {
        let session: TokenUseRefusal.Session
        /// `METHOD /path`.
        let route: String
        let metadata: RequestMetadata
    }

    private struct State: Sendable {
        var limits: RefusalTally<LimitKey, String>
        var requests: RefusalTally<String, String>
        var access: RefusalTally<AccessKey, String>
        var tokenUses: RefusalTally<UUID, TokenUse>
        var written = 0
        var refused = 0
        /// Events taken out of the tallies whose append failed, retried at the next flush (at most
        /// `maximumUnwritten`; older ones are dropped and counted in `lost` and `dropped`).
        var unwritten: [Pending] = []
        var lost = 0
        /// The refusal events dropped since the last `audit.refusals_dropped` recorded them.
        var dropped: Dropped?
    }

    /// An event to append, with the refused requests it accounts for.
    struct Pending: Sendable {
        let event: EventEnvelope
        let requests: Int
    }

    /// Refusal events dropped in one episode of an unwritable database.
    struct Dropped: Sendable, Equatable {
        var events = 0
        var requests = 0
        var firstAt: Timestamp
        var lastAt: Timestamp
    }

    /// The policy whose limits the events name.
    let policy: RateLimitPolicy
    private let state: Mutex<State>
    /// This recorder, in the ids of its `audit.refusals_dropped` events.
    private let process = UUID()

    /// The most events kept for a retry while the database cannot be written.
    let maximumUnwritten: Int

    /// A recorder summing refusals over `policy`'s window, keeping up to `maximumUnwritten` events while the
    /// database cannot be written.
    public init(policy: RateLimitPolicy, maximumUnwritten: Int = 10_000) {
        self.policy = policy
        self.maximumUnwritten = maximumUnwritten
        let window = policy.windowSeconds
        self.state = Mutex(
            State(
                limits: RefusalTally(
                    windowSeconds: window,
                    overflowKey: LimitKey(scope: .address, key: "*", route: "*")
                ),
                requests: RefusalTally(windowSeconds: window, overflowKey: "*"),
                access: RefusalTally(windowSeconds: window, overflowKey: AccessKey(address: "*", actor: "*")),
                tokenUses: RefusalTally(windowSeconds: window, overflowKey: Self.overflowSession)
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

    /// Counts one refused token the token rules answered without recording (``TokenUseRefusal``): on its
    /// session when it names one, else as a request `metadata`'s address sent.
    func noteTokenUse(_ refusal: TokenUseRefusal, route: String, metadata: RequestMetadata) {
        let now = Timestamp.now()
        self.state.withLock {
            $0.refused += 1
            guard let session = refusal.session else {
                $0.requests.note(metadata.ip?.description ?? "", kind: refusal.reason, at: now)
                return
            }
            // What the event keeps, no more: a window's first request is held until the window closes.
            let kept = RequestMetadata(
                ip: metadata.ip,
                userAgent: EnvelopeText.normalized(metadata.userAgent, limit: EnvelopeText.Limit.userAgent),
                requestID: EnvelopeText.normalized(metadata.requestID, limit: EnvelopeText.Limit.requestID) ?? ""
            )
            let use = TokenUse(session: session, route: route, metadata: kept)
            $0.tokenUses.note(session.sessionID, kind: refusal.reason, detail: use, at: now)
        }
    }

    /// The key the tally counts under once ``RefusalTally/maximumKeys`` sessions have an open window.
    static let overflowSession = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// How many refusals were counted, how many events recorded them so far, and how many events were dropped
    /// because the database stayed unwritable past ``maximumUnwritten``.
    public var totals: (refused: Int, events: Int, lost: Int) {
        self.state.withLock { ($0.refused, $0.written, $0.lost) }
    }

    /// The events that record what is ready: first refusals and ended windows (every open window when
    /// `everything`, at shutdown), each with the refused requests it accounts for. Taken out of the tallies: the
    /// caller must append them.
    func takeEvents(everything: Bool = false) throws -> [Pending] {
        let now = Timestamp.now()
        let (limits, requests, access, tokenUses) = self.state.withLock { state in
            (
                state.limits.take(at: now, everything: everything),
                state.requests.take(at: now, everything: everything),
                state.access.take(at: now, everything: everything),
                state.tokenUses.take(at: now, everything: everything)
            )
        }
        let window = self.policy.windowSeconds
        var events: [Pending] = []
        for summary in limits {
            let limit = self.limit(of: summary.key)
            let metadata = RequestMetadata(
                ip: summary.key.scope == .address ? IPAddress(summary.key.key) : nil,
                requestID: summary.isFirst ? summary.detail : ""
            )
            let event = try metadata.envelope(
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
            events.append(Pending(event: event, requests: summary.count))
        }
        for summary in tokenUses {
            events.append(Pending(event: try self.event(recording: summary), requests: summary.count))
        }
        for summary in requests {
            let event = try self.requestRefused(summary, ip: IPAddress(summary.key))
            events.append(Pending(event: event, requests: summary.count))
        }
        for summary in access {
            var payload = AuditAccessed(actor: summary.key.actor, query: summary.detail)
            payload.count = summary.count
            payload.firstAt = summary.firstAt.description
            payload.lastAt = summary.lastAt.description
            payload.windowSeconds = window
            payload.reasons = summary.counts
            let anonymousReadsOnly = summary.counts.keys.allSatisfy { $0 == "anonymous_read" }
            let event = try RequestMetadata(ip: IPAddress(summary.key.address), requestID: "").envelope(
                stream: StreamName(category: "audit", id: "access"),
                outcome: anonymousReadsOnly ? .success : .failure,
                reason: anonymousReadsOnly ? nil : summary.mainKind,
                at: summary.lastAt,
                data: payload
            )
            events.append(Pending(event: event, requests: summary.count))
        }
        return events
    }

    /// `token.access_refused` on the session of `summary`; the summary of the overflow window, which mixes
    /// sessions, as `request.refused` with no address.
    private func event(recording summary: RefusalTally<UUID, TokenUse>.Summary) throws -> EventEnvelope {
        let window = self.policy.windowSeconds
        guard summary.key != Self.overflowSession || summary.isFirst else {
            return try self.requestRefused(summary, ip: nil)
        }
        let use = summary.detail
        var metadata = use.metadata
        metadata.clientID = use.session.clientID
        if !summary.isFirst { metadata.requestID = "" }
        return try metadata.envelope(
            stream: StreamName(category: "session", id: use.session.sessionID.lowercased),
            outcome: .failure,
            reason: summary.mainKind,
            userID: use.session.userID,
            sessionID: use.session.sessionID,
            at: summary.lastAt,
            data: TokenAccessRefused(
                tokenID: use.session.tokenID.lowercased,
                tokenKind: use.session.tokenKind.rawValue,
                route: use.route,
                counts: summary.counts,
                firstAt: summary.firstAt.description,
                lastAt: summary.lastAt.description,
                windowSeconds: window
            )
        )
    }

    /// `request.refused` of `ip` (none: refusals of several addresses) for what `summary` counted; its reason is
    /// the most frequent kind.
    private func requestRefused<Key, Detail>(
        _ summary: RefusalTally<Key, Detail>.Summary,
        ip: IPAddress?
    ) throws -> EventEnvelope {
        try RequestMetadata(ip: ip, requestID: "").envelope(
            stream: StreamName(category: "ratelimit", id: "edge"),
            outcome: .failure,
            reason: summary.mainKind,
            at: summary.lastAt,
            data: RequestRefused(
                counts: summary.counts,
                firstAt: summary.firstAt.description,
                lastAt: summary.lastAt.description,
                windowSeconds: self.policy.windowSeconds
            )
        )
    }

    /// Appends what is ready to `store`, with the events an earlier flush could not append. Events whose
    /// append fails are kept for the next flush, so a database outage delays the record instead of losing
    /// it; the counts in `/metrics` never wait. Past `maximumUnwritten` waiting, the oldest are dropped, and
    /// once appends succeed again one `audit.refusals_dropped` records how many and what they accounted for.
    /// - Throws: the first error the store gave, after keeping what it refused.
    public func flush(into store: any EventStore, everything: Bool = false) async throws {
        let taken = try self.takeEvents(everything: everything)
        let pending = self.state.withLock { state in
            defer { state.unwritten = [] }
            return state.unwritten + taken
        }
        var failed: [Pending] = []
        var firstError: (any Error)?
        if !pending.isEmpty {
            let results = await store.appendEach(pending.map { AppendCommand($0.event, expecting: .any) })
            for (item, result) in zip(pending, results) {
                if case .failure(let error) = result {
                    failed.append(item)
                    firstError = firstError ?? error
                }
            }
        }
        let now = Timestamp.now()
        let dropped = self.state.withLock { state -> Dropped? in
            state.written += pending.count - failed.count
            state.unwritten = failed + state.unwritten
            let excess = state.unwritten.count - self.maximumUnwritten
            if excess > 0 {
                let requests = state.unwritten.prefix(excess).reduce(0) { $0 + $1.requests }
                state.unwritten.removeFirst(excess)
                state.lost += excess
                var episode = state.dropped ?? Dropped(firstAt: now, lastAt: now)
                episode.events += excess
                episode.requests += requests
                episode.lastAt = now
                state.dropped = episode
            }
            // Recorded once appends work again: nothing failed in this flush.
            return failed.isEmpty ? state.dropped : nil
        }
        if let firstError { throw firstError }
        if let dropped { try await self.record(dropped, into: store) }
    }

    /// Records `dropped` as `audit.refusals_dropped`; its id is a hash of this recorder and the episode's
    /// start, so an append whose answer was lost and is made again stores it once.
    /// - Throws: the store's error; the episode is then kept for the next flush.
    private func record(_ dropped: Dropped, into store: any EventStore) async throws {
        let event = try EventEnvelope(
            AuditRefusalsDropped(
                events: dropped.events,
                requests: dropped.requests,
                firstDroppedAt: dropped.firstAt.description,
                lastDroppedAt: dropped.lastAt.description
            ),
            eventID: OnceEventID.make(
                "refusals_dropped",
                self.process.uuidString,
                "\(dropped.firstAt.microsecondsSinceEpoch)"
            ),
            stream: StreamName(category: "audit", id: "refusals"),
            occurredAt: dropped.lastAt,
            outcome: .failure,
            reason: "too_many_waiting"
        )
        try await store.append(AppendCommand(event, expecting: .any))
        self.state.withLock { state in
            guard let episode = state.dropped, episode.events > dropped.events else {
                state.dropped = nil
                return
            }
            // Drops counted after `dropped` was taken wait for the next record.
            state.dropped = Dropped(
                events: episode.events - dropped.events,
                requests: episode.requests - dropped.requests,
                firstAt: dropped.lastAt,
                lastAt: episode.lastAt
            )
        }
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
