public import Foundation

/// What consuming a nonce found.
public enum NonceConsumption: Sendable, Equatable {
    /// First use: accepted.
    case accepted
    /// The (provider, nonce) pair was used before.
    case replayed
    /// authlog issued it, and its time to live has passed.
    case expired
}

/// One grant of a deleted user to revoke at its provider.
public struct ProviderRevocationItem: Sendable, Equatable {
    /// The deleted user.
    public var userID: UUID
    /// The provider.
    public var provider: String
    /// The identity's keyed subject hash.
    public var subjectHash: String
    /// The credential, sealed under the data key.
    public var sealedToken: [UInt8]
    /// Attempts made before this one.
    public var attempts: Int

    /// Creates an item.
    public init(userID: UUID, provider: String, subjectHash: String, sealedToken: [UInt8], attempts: Int = 0) {
        self.userID = userID
        self.provider = provider
        self.subjectHash = subjectHash
        self.sealedToken = sealedToken
        self.attempts = attempts
    }
}

/// A user who signed in with a provider that vouched for an email.
public struct EmailOwner: Sendable, Equatable {
    /// The user.
    public var userID: UUID
    /// The provider that vouched for it.
    public var provider: String

    /// Creates an owner.
    public init(userID: UUID, provider: String) {
        self.userID = userID
        self.provider = provider
    }
}

/// An active session past one of its lifetimes, with its stream's version for an expected-version append.
public struct ExpiringSession: Sendable {
    /// The session.
    public var session: SessionRecord
    /// The session stream's version when it was read.
    public var version: Int32
    /// The limit it passed.
    public var limit: SessionLimit

    /// Creates one.
    public init(session: SessionRecord, version: Int32, limit: SessionLimit) {
        self.session = session
        self.version = version
        self.limit = limit
    }
}
