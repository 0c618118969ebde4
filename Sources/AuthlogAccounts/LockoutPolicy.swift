public import AuthlogCore

/// When an identity's sign-ins are locked (`rate_limits.lockout`, docs/configuration.md): after `failures`
/// failed proofs that its provider vouched for within `windowSeconds`, for `firstLockSeconds`, doubling for
/// each lock that follows within a window of the last one's end, up to `maximumLockSeconds`. Every lock runs
/// out on its own (NIST SP 800-63B §5.2.2: back off, never lock for good).
public struct LockoutPolicy: Sendable, Equatable {
    /// `rate_limits.lockout.failures` default.
    public static let defaultFailures = 10
    /// `rate_limits.lockout.window_seconds` default.
    public static let defaultWindowSeconds = 900
    /// `rate_limits.lockout.first_lock_seconds` default.
    public static let defaultFirstLockSeconds = 60
    /// `rate_limits.lockout.maximum_lock_seconds` default.
    public static let defaultMaximumLockSeconds = 3_600

    /// Whether locks are decided and enforced at all (`rate_limits.enabled`).
    public var isEnabled: Bool
    /// Counted failures that lock (1…``IdentityLockout/keptFailures``).
    public var failures: Int
    /// The window they are counted in, seconds (≥ 1).
    public var windowSeconds: Int64
    /// The first lock's length, seconds (≥ 1).
    public var firstLockSeconds: Int64
    /// The longest lock, seconds (≥ `firstLockSeconds`).
    public var maximumLockSeconds: Int64

    /// A policy; out-of-range values are clamped (failures to 1…100, lengths to at least a second, the
    /// maximum to at least the first lock).
    public init(
        isEnabled: Bool = true,
        failures: Int = LockoutPolicy.defaultFailures,
        windowSeconds: Int = LockoutPolicy.defaultWindowSeconds,
        firstLockSeconds: Int = LockoutPolicy.defaultFirstLockSeconds,
        maximumLockSeconds: Int = LockoutPolicy.defaultMaximumLockSeconds
    ) {
        self.isEnabled = isEnabled
        self.failures = min(max(failures, 1), IdentityLockout.keptFailures)
        self.windowSeconds = Int64(max(windowSeconds, 1))
        self.firstLockSeconds = Int64(max(firstLockSeconds, 1))
        self.maximumLockSeconds = max(Int64(maximumLockSeconds), self.firstLockSeconds)
    }

    /// No locks: nothing counted, nothing refused.
    public static let disabled = LockoutPolicy(isEnabled: false)

    /// The start of the window that ends at `now`: failures at or after it count.
    public func windowStart(at now: Timestamp) -> Timestamp { now.adding(seconds: -self.windowSeconds) }

    /// Whether `lockout` (its failures counted from ``windowStart(at:)``) trips a new lock.
    public func trips(_ lockout: IdentityLockout) -> Bool { lockout.recentFailures >= self.failures }

    /// The back-off level of the lock that `lockout` trips at `now`: one more than the last lock's when that
    /// one ended less than a window ago (the failures went on), 1 otherwise.
    public func nextLevel(after lockout: IdentityLockout, at now: Timestamp) -> Int {
        guard lockout.level > 0, let until = lockout.lockedUntil, now < until.adding(seconds: self.windowSeconds)
        else { return 1 }
        return lockout.level + 1
    }

    /// How long a lock at `level` lasts: the first lock's length doubled `level − 1` times, capped.
    public func lockSeconds(level: Int) -> Int64 {
        var seconds = self.firstLockSeconds
        for _ in 1..<max(level, 1) {
            seconds *= 2
            if seconds >= self.maximumLockSeconds { return self.maximumLockSeconds }
        }
        return min(seconds, self.maximumLockSeconds)
    }
}
