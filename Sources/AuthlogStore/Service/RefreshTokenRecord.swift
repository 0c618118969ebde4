public import AuthlogCore
public import Foundation

/// A refresh token as the projections know it, with its session's state and stream version.
public struct RefreshTokenRecord: Sendable, Equatable {
    public var tokenID: UUID
    public var familyID: UUID
    public var sessionID: UUID
    public var userID: UUID
    public var provider: String?
    public var kind: RefreshTokenKind
    /// `active`, `rotated` or `revoked`.
    public var state: String
    public var expiresAt: Timestamp
    /// `active`, `logged_out`, `revoked` or `expired`.
    public var sessionState: String
    public var clientID: String?
    /// The session stream's current version, for an expected-version append.
    public var sessionVersion: Int32
}

/// A session as the projections know it, with its stream version.
public struct SessionRecord: Sendable, Equatable {
    public var sessionID: UUID
    public var userID: UUID
    public var provider: String
    public var clientID: String?
    /// `active`, `logged_out`, `revoked` or `expired`.
    public var state: String
    public var startedAt: Timestamp
    public var endReason: String?
    /// The session stream's current version.
    public var version: Int32
}
