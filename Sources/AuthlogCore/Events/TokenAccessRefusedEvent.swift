/// A valid access token (or a known refresh token, at revocation) was refused because the DPoP proof that
/// came with it did not do (`token.access_refused`): no proof for a token bound to a key, a proof by another
/// key, a replayed or stale proof. Recorded on the token's session stream, so the user sees it in their
/// activity. Aggregated like ``RateLimitExceeded``, per session: the first refusal in a window at once, the
/// ones after it as one event when the window closes, so whoever holds a stolen token writes at most two events
/// per session and window. The envelope's `reason` is the most frequent reason (``counts``).
public struct TokenAccessRefused: EventPayload {
    public static let eventType = EventType.tokenAccessRefused
    /// The presented token's id (the access token's `jti`, or the refresh token's id), of the window's first
    /// refusal.
    public var tokenID: String
    /// `access_token` or `refresh_token`.
    public var tokenKind: String
    /// The window's first refused request: its method and path (`POST /v1/logout`).
    public var route: String
    /// How many refusals this event accounts for, by exact reason (`dpop_wrong_key`, `dpop_missing`, …).
    public var counts: [String: Int]
    /// When the first of them was refused (ISO 8601).
    public var firstAt: String
    /// When the last of them was refused (ISO 8601).
    public var lastAt: String
    /// The length of the aggregation window, seconds.
    public var windowSeconds: Int

    /// Creates the payload.
    public init(
        tokenID: String,
        tokenKind: String,
        route: String,
        counts: [String: Int],
        firstAt: String,
        lastAt: String,
        windowSeconds: Int
    ) {
        self.tokenID = tokenID
        self.tokenKind = tokenKind
        self.route = route
        self.counts = counts
        self.firstAt = firstAt
        self.lastAt = lastAt
        self.windowSeconds = windowSeconds
    }

    /// Requires at least one refusal of each reason, and a known token kind.
    public func checkContents() throws(EventValidationError) {
        guard !self.counts.isEmpty, self.counts.values.allSatisfy({ $0 >= 1 }) else {
            throw EventValidationError(field: "data.counts", problem: "must count at least one refusal of each reason")
        }
        guard ["access_token", "refresh_token"].contains(self.tokenKind) else {
            throw EventValidationError(field: "data.token_kind", problem: "must be access_token or refresh_token")
        }
    }
}
