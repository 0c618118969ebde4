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

    /// "Remember me" sessions.
    public var rememberMe: Limits
    /// Plain sessions.
    public var plain: Limits

    /// Creates the lifetimes (the server's defaults are in `ConfigurationDefaults`).
    public init(rememberMe: Limits, plain: Limits) {
        self.rememberMe = rememberMe
        self.plain = plain
    }

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
