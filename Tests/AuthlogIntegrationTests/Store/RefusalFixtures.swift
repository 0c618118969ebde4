import AuthlogAccounts
import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

/// Aggregated refusal events built the way `RefusalRecorder` builds them, on 2026-10-04 and 05 (inside the
/// period TrafficGenerator fills), placed so that a range from 10:05 to 14:45 on the 4th reads some of them
/// from its partial edge hours (item by item) and the others from whole hours (the roll-ups).
enum RefusalFixtures {
    /// The range whose edges cut hours: 10:05 to 14:45 on 2026-10-04.
    static let since = "2026-10-04T10:05:00Z"
    static let until = "2026-10-04T14:45:00Z"

    /// What the failures report must show over ``since``–``until`` for the refusals: the sum of the requests
    /// the events account for, by reason.
    static let expectedInRange: [String: Int64] = [
        "rate_limited:signin": 5_000,
        "request_refused:malformed": 3,
        "request_refused:too_large": 2,
        "audit_refused:missing_api_key": 40,
        "audit_refused:invalid_request": 1,
    ]

    /// The flooding address.
    static let address = "203.0.113.66"

    static func at(_ text: String) throws -> Timestamp { try #require(Timestamp(iso8601: text)) }

    /// One `ratelimit.exceeded` accounting for `count` requests of `route`.
    static func rateLimited(
        route: String,
        count: Int,
        scope: LimitScope = .address,
        at time: String
    ) throws
        -> EventEnvelope
    {
        try Self.rateLimited(route: route, count: count, scope: scope, at: try Self.at(time))
    }

    /// One `ratelimit.exceeded` accounting for `count` requests of `route`, at `when`.
    static func rateLimited(
        route: String,
        count: Int,
        scope: LimitScope = .address,
        at when: Timestamp
    ) throws
        -> EventEnvelope
    {
        try RequestMetadata(ip: IPAddress(Self.address), requestID: count == 1 ? "req-first" : "").envelope(
            stream: StreamName(category: "ratelimit", id: route),
            outcome: .failure,
            reason: "rate_limited",
            at: when,
            data: RateLimitExceeded(
                scope: scope,
                key: scope == .address ? Self.address : "family-1",
                route: route,
                perSecond: 1,
                burst: 10,
                count: count,
                firstAt: when.description,
                lastAt: when.description,
                windowSeconds: 60
            )
        )
    }

    /// One `request.refused` with its counts by kind.
    static func edgeRefused(_ counts: [String: Int], at time: String) throws -> EventEnvelope {
        let when = try Self.at(time)
        let main = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
        return try RequestMetadata(ip: IPAddress(Self.address), requestID: "").envelope(
            stream: StreamName(category: "ratelimit", id: "edge"),
            outcome: .failure,
            reason: main,
            at: when,
            data: RequestRefused(counts: counts, firstAt: when.description, lastAt: when.description, windowSeconds: 60)
        )
    }

    /// One `audit.accessed`: aggregated when `reasons` is given (outcome failure unless every request was an
    /// anonymous read), else a single read, refused when `refusal` is given.
    static func access(
        reasons: [String: Int]? = nil,
        refusal: String? = nil,
        at time: String
    ) throws
        -> EventEnvelope
    {
        let when = try Self.at(time)
        var payload = AuditAccessed(actor: "anonymous", query: "events")
        var outcome: Outcome = refusal == nil ? .success : .failure
        var reason = refusal
        if let reasons {
            payload.count = reasons.values.reduce(0, +)
            payload.reasons = reasons
            payload.firstAt = when.description
            payload.lastAt = when.description
            payload.windowSeconds = 60
            if !reasons.keys.allSatisfy({ $0 == "anonymous_read" }) {
                outcome = .failure
                reason = reasons.filter { $0.key != "anonymous_read" }.max { $0.value < $1.value }?.key
            }
        }
        return try RequestMetadata(ip: IPAddress(Self.address), requestID: "").envelope(
            stream: StreamName(category: "audit", id: "access"),
            outcome: outcome,
            reason: reason,
            at: when,
            data: payload
        )
    }

    /// The events: some inside the range at its edges and in whole hours, some just outside it, and reads
    /// that are not refusals.
    static func events() throws -> [EventEnvelope] {
        [
            // Before the range, and after it.
            try Self.rateLimited(route: "refresh", count: 7, scope: .family, at: "2026-10-04T09:59:59Z"),
            try Self.rateLimited(route: "signin", count: 11, at: "2026-10-04T14:45:00Z"),
            // A window's first refusal in the partial hour at the start, its summary in a whole hour.
            try Self.rateLimited(route: "signin", count: 1, at: "2026-10-04T10:20:00Z"),
            try Self.rateLimited(route: "signin", count: 4_999, at: "2026-10-04T12:40:00Z"),
            // Refused below the router, in the partial hour at the end.
            try Self.edgeRefused(["malformed": 3, "too_large": 2], at: "2026-10-04T14:30:00Z"),
            // Keyless reads mixed with anonymous ones, in a whole hour: only the refused are counted.
            try Self.access(reasons: ["missing_api_key": 40, "anonymous_read": 60], at: "2026-10-04T11:15:00Z"),
            try Self.access(reasons: ["anonymous_read": 500], at: "2026-10-04T11:20:00Z"),
            // A refused read recorded alone, and a read with a valid key, in the partial hour at the start.
            try Self.access(refusal: "invalid_request", at: "2026-10-04T10:10:00Z"),
            try Self.access(at: "2026-10-04T10:11:00Z"),
            // The next day, for the daily roll-ups.
            try Self.edgeRefused(["connection_cap": 1], at: "2026-10-05T03:00:00Z"),
        ]
    }
}
