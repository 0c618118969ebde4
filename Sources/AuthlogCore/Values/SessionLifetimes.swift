/// How long sessions live: an absolute and an idle lifetime, separately for "remember me" sessions and
/// plain ones, in seconds. Every value is range-checked when the configuration is read.
public struct SessionLifetimes: Sendable, Equatable {
    /// The two limits of one kind of session.
    public struct Limits: Sendable, Equatable {
        /// Seconds from the sign-in after which the session ends, however it is used.
        public var absolute: Int64
        /// Seconds without a refresh after which the session ends.
        public var idle: Int64

        /// Creates limits.
        public init(absolute: Int64, idle: Int64) {
            self.absolute = absolute
            self.idle = idle
        }
    }

    /// "Remember me" sessions: 30 days absolute, 14 days idle by default.
    public var rememberMe = Limits(absolute: 30 * 86_400, idle: 14 * 86_400)
    /// Plain sessions: 12 hours absolute, 2 hours idle by default.
    public var plain = Limits(absolute: 12 * 3_600, idle: 2 * 3_600)

    /// The defaults.
    public init() {}

    /// The limits of one kind of session.
    public func limits(for kind: RefreshTokenKind) -> Limits {
        kind == .rememberMe ? self.rememberMe : self.plain
    }

    /// The limit a session has passed at `now`, if any; the absolute one wins when both have.
    public func passedLimit(
        kind: RefreshTokenKind,
        startedAt: Timestamp,
        lastSeenAt: Timestamp,
        now: Timestamp
    ) -> SessionLimit? {
        let limits = self.limits(for: kind)
        if now >= startedAt.adding(seconds: limits.absolute) { return .absolute }
        if now >= lastSeenAt.adding(seconds: limits.idle) { return .idle }
        return nil
    }
}
