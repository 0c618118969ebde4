public import AuthlogCore
public import Foundation

/// A refresh token as the projections know it, with its session's state and stream version.
public struct RefreshTokenRecord: Sendable, Equatable {
    /// The token's id.
    public var tokenID: UUID
    /// Its rotation family.
    public var familyID: UUID
    /// The session.
    public var sessionID: UUID
    /// authlog's user.
    public var userID: UUID
    /// The provider of the session's sign-in.
    public var provider: String?
    /// Whether it is a "remember me" token.
    public var kind: RefreshTokenKind
    /// `active`, `rotated` or `revoked`.
    public var state: String
    /// When it expires.
    public var expiresAt: Timestamp
    /// `active`, `logged_out`, `revoked` or `expired`.
    public var sessionState: String
    /// The app the session was started for, when known.
    public var clientID: String?
    /// The session stream's current version, for an expected-version append.
    public var sessionVersion: Int32
}

/// A session as the projections know it.
public struct SessionRecord: Sendable, Equatable {
    /// The session.
    public var sessionID: UUID
    /// authlog's user.
    public var userID: UUID
    /// The provider of the session's sign-in.
    public var provider: String
    /// The app the session was started for, when known.
    public var clientID: String?
    /// `active`, `logged_out`, `revoked` or `expired`.
    public var state: String
    /// When the session started.
    public var startedAt: Timestamp
    /// Why it ended, once it has.
    public var endReason: String?
}
