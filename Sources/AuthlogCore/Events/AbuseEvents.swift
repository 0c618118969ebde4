/// What a rate limit or an aggregated refusal counts requests by.
public enum LimitScope: String, Sendable, Codable, CaseIterable {
    /// The client address (after `trusted_proxies`).
    case address
    /// A refresh-token family.
    case family
    /// An API key, by name.
    case apiKey = "api_key"
}

/// Requests refused by a rate limit (`ratelimit.exceeded`). The first refusal for a key in a window is
/// recorded at once with `count` 1; the refusals after it are counted in memory and recorded as one event when
/// the window closes, so a flood writes two events per key per window while `count` still accounts for every
/// refused request. The envelope's `reason` is `rate_limited`; `ip` is set when `scope` is `address`.
public struct RateLimitExceeded: EventPayload {
    public static let eventType = EventType.rateLimitExceeded
    /// What the limit counts by.
    public var scope: LimitScope
    /// The key within the scope: the address, the subject hash, the family id or the key's name.
    public var key: String
    /// The limited route group (`signin`, `refresh`, `nonce`, `revoke`, `introspect`, `log_read`, `audit`,
    /// `account`).
    public var route: String
    /// The limit's sustained rate, requests a second.
    public var perSecond: Double
    /// The limit's burst.
    public var burst: Int
    /// How many refused requests this event accounts for (≥ 1).
    public var count: Int
    /// When the first of them was refused (ISO 8601).
    public var firstAt: String
    /// When the last of them was refused (ISO 8601).
    public var lastAt: String
    /// The length of the aggregation window, seconds.
    public var windowSeconds: Int

    /// Creates the payload.
    public init(
        scope: LimitScope,
        key: String,
        route: String,
        perSecond: Double,
        burst: Int,
        count: Int,
        firstAt: String,
        lastAt: String,
        windowSeconds: Int
    ) {
        self.scope = scope
        self.key = key
        self.route = route
        self.perSecond = perSecond
        self.burst = burst
        self.count = count
        self.firstAt = firstAt
        self.lastAt = lastAt
        self.windowSeconds = windowSeconds
    }

    /// Requires a positive count.
    public func checkContents() throws(EventValidationError) {
        guard self.count >= 1 else { throw EventValidationError(field: "data.count", problem: "must be at least 1") }
    }
}

/// Requests from one address that the HTTP edge refused before any route ran (`request.refused`): requests
/// the parser could not read, connections over the per-address cap. Aggregated like
/// ``RateLimitExceeded``: the first in a window at once, the rest as one event when the window closes. The
/// envelope's `reason` is the most frequent kind; `ip` is the address.
public struct RequestRefused: EventPayload {
    public static let eventType = EventType.requestRefused
    /// How many requests or connections this event accounts for, by kind: the code of the answer given below
    /// the router (`invalid_request`, `request_header_fields_too_large`, `method_not_allowed`,
    /// `request_timeout` for a connection that never sent a request) or `per_address_cap` for a connection
    /// closed unread.
    public var counts: [String: Int]
    /// When the first of them was refused (ISO 8601).
    public var firstAt: String
    /// When the last of them was refused (ISO 8601).
    public var lastAt: String
    /// The length of the aggregation window, seconds.
    public var windowSeconds: Int

    /// Creates the payload.
    public init(counts: [String: Int], firstAt: String, lastAt: String, windowSeconds: Int) {
        self.counts = counts
        self.firstAt = firstAt
        self.lastAt = lastAt
        self.windowSeconds = windowSeconds
    }

    /// Requires at least one refusal.
    public func checkContents() throws(EventValidationError) {
        guard !self.counts.isEmpty, self.counts.values.allSatisfy({ $0 >= 1 }) else {
            throw EventValidationError(field: "data.counts", problem: "must count at least one refusal of each kind")
        }
    }
}

/// An identity's sign-ins were locked after repeated failed proofs that the provider had vouched for
/// (`identity.locked`, the OWASP vocabulary's `authn_login_lock`). Sign-ins of the identity are refused until
/// `locked_until`, answered exactly as a failed proof is. The envelope's `reason` is `too_many_failures`.
public struct IdentityLocked: EventPayload {
    public static let eventType = EventType.identityLocked
    /// The keyed hash of the provider subject.
    public var subjectHash: String
    /// How many counted failures tripped the lock.
    public var failures: Int
    /// The window those failures fell in, seconds.
    public var windowSeconds: Int
    /// The back-off step: 1 for the first lock, growing while failures go on.
    public var level: Int
    /// When the lock expires on its own (ISO 8601).
    public var lockedUntil: String

    /// Creates the payload.
    public init(subjectHash: String, failures: Int, windowSeconds: Int, level: Int, lockedUntil: String) {
        self.subjectHash = subjectHash
        self.failures = failures
        self.windowSeconds = windowSeconds
        self.level = level
        self.lockedUntil = lockedUntil
    }

    /// Requires a level of 1 or more and an ISO 8601 `locked_until`.
    public func checkContents() throws(EventValidationError) {
        guard self.level >= 1 else { throw EventValidationError(field: "data.level", problem: "must be at least 1") }
        guard Timestamp(iso8601: self.lockedUntil) != nil else {
            throw EventValidationError(field: "data.locked_until", problem: "must be an ISO 8601 time")
        }
    }
}

/// An identity's lock was lifted (`identity.unlocked`): by an operator (`authlog users unlock`,
/// `POST /v1/admin/identities/unlock`) or because it expired.
public struct IdentityUnlocked: EventPayload {
    public static let eventType = EventType.identityUnlocked
    /// Why the lock was lifted.
    public enum Cause: String, Sendable, Codable, CaseIterable {
        /// An operator lifted it.
        case `operator`
        /// Its back-off ran out.
        case expired
    }
    /// The keyed hash of the provider subject.
    public var subjectHash: String
    /// Why the lock was lifted.
    public var cause: Cause
    /// Who lifted it (`key:NAME`, `os:USER@HOST`), absent when it expired.
    public var actor: String?

    /// Creates the payload.
    public init(subjectHash: String, cause: Cause, actor: String? = nil) {
        self.subjectHash = subjectHash
        self.cause = cause
        self.actor = actor
    }
}
