public import Foundation

/// The lockout state of one identity (`identity_lockouts`), as the sign-in rules read it: the failed proofs
/// its provider vouched for, its last lock, and the version of its `identity-…` stream.
public struct IdentityLockout: Sendable, Equatable {
    /// How many of an identity's newest counted failures the projection keeps. Enough for any lockout limit
    /// (NIST SP 800-63B caps consecutive failures at 100), and it bounds each row and each count.
    public static let keptFailures = 100

    /// The counted failures at or after the time asked for (at most ``keptFailures``).
    public var recentFailures: Int
    /// The back-off level of the last lock (1 for a first lock), 0 when there was none since the last
    /// operator unlock.
    public var level: Int
    /// When the last lock began, if there was one since the last operator unlock.
    public var lockedAt: Timestamp?
    /// When the last lock ends (or ended).
    public var lockedUntil: Timestamp?
    /// Whether the last lock is still recorded as in force: no `identity.unlocked` followed it. It may have run
    /// out by the clock already; ``isLocked(at:)`` tells.
    public var isLockRecorded: Bool
    /// The version of the identity's stream (0: no lock or unlock yet), for the expected-version check that
    /// keeps two processes from recording one lock twice.
    public var streamVersion: Int32

    /// Creates a state.
    public init(
        recentFailures: Int = 0,
        level: Int = 0,
        lockedAt: Timestamp? = nil,
        lockedUntil: Timestamp? = nil,
        isLockRecorded: Bool = false,
        streamVersion: Int32 = 0
    ) {
        self.recentFailures = recentFailures
        self.level = level
        self.lockedAt = lockedAt
        self.lockedUntil = lockedUntil
        self.isLockRecorded = isLockRecorded
        self.streamVersion = streamVersion
    }

    /// Whether the identity's sign-ins are refused at `now`.
    public func isLocked(at now: Timestamp) -> Bool {
        guard self.isLockRecorded, let until = self.lockedUntil else { return false }
        return now < until
    }

    /// Whether a recorded lock has run out by `now` without its `identity.unlocked` yet.
    public func hasExpiredUnrecorded(at now: Timestamp) -> Bool {
        guard self.isLockRecorded, let until = self.lockedUntil else { return false }
        return now >= until
    }

    /// The stream of one identity's locks and unlocks: `identity-<provider>:<subject_hash>`.
    public static func streamName(provider: String, subjectHash: String) -> StreamName {
        StreamName(category: "identity", id: "\(provider):\(subjectHash)")
    }
}

/// A recorded lock that ran out without its `identity.unlocked` yet.
public struct ExpiredLock: Sendable, Equatable {
    /// The provider.
    public var provider: String
    /// The keyed subject hash.
    public var subjectHash: String
    /// The version of the identity's stream, for the expected-version check.
    public var streamVersion: Int32

    /// Creates an expired lock.
    public init(provider: String, subjectHash: String, streamVersion: Int32) {
        self.provider = provider
        self.subjectHash = subjectHash
        self.streamVersion = streamVersion
    }
}

/// Reads of the identity lockout projection (`identity_lockouts`), maintained by ``ProjectionReducer`` from
/// `signin.failed`, `signin.succeeded`, `identity.locked` and `identity.unlocked`.
public protocol IdentityLockouts: Sendable {
    /// The lockout state of `provider`/`subjectHash`, counting the failures at or after `since`; an identity
    /// never seen has the empty state.
    func lockout(
        provider: String,
        subjectHash: String,
        failuresSince since: Timestamp
    ) async throws
        -> IdentityLockout
    /// At most `limit` recorded locks that ran out by `now` without their `identity.unlocked`, the longest
    /// run out first.
    func expiredLocks(at now: Timestamp, limit: Int) async throws -> [ExpiredLock]
}
