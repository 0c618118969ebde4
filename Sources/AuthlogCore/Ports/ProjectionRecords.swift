public import Foundation

/// A refresh token as the projections know it, with its session's state and stream version.
public struct RefreshTokenRecord: Sendable, Equatable {
    /// The token's id.
    public var tokenID: UUID
    /// Its rotation family.
    public var familyID: UUID
    /// The token's own state.
    public var state: RefreshTokenState
    /// When it expires.
    public var expiresAt: Timestamp
    /// The session it belongs to, with its user.
    public var session: SessionRecord
    /// The session stream's current version, for an expected-version append.
    public var sessionVersion: Int32
    /// When it was spent by rotation, if it was.
    public var rotatedAt: Timestamp?
    /// The answer its rotation gave, sealed under a key only the presented token derives
    /// (`refresh_tokens.successor_sealed`), while a spent token may still be replayed within the grace window.
    public var sealedSuccessor: [UInt8]?
    /// The session's sign-in and what its admitted refreshes were flagged for, when read
    /// (`withSessionSignin`).
    public var sessionSignin: SessionSignin?
    /// The RFC 7638 thumbprint of the DPoP key the family is bound to (`refresh_tokens.dpop_jkt`), when bound.
    public var dpopJKT: String?

    /// The session.
    public var sessionID: UUID { self.session.sessionID }
    /// authlog's user.
    public var userID: UUID { self.session.userID }
    /// The provider of the session's sign-in.
    public var provider: String? { self.session.provider }

    /// Creates a record.
    public init(
        tokenID: UUID,
        familyID: UUID,
        state: RefreshTokenState,
        expiresAt: Timestamp,
        session: SessionRecord,
        sessionVersion: Int32,
        rotatedAt: Timestamp? = nil,
        sealedSuccessor: [UInt8]? = nil,
        sessionSignin: SessionSignin? = nil,
        dpopJKT: String? = nil
    ) {
        self.dpopJKT = dpopJKT
        self.sessionSignin = sessionSignin
        self.tokenID = tokenID
        self.familyID = familyID
        self.state = state
        self.expiresAt = expiresAt
        self.session = session
        self.sessionVersion = sessionVersion
        self.rotatedAt = rotatedAt
        self.sealedSuccessor = sealedSuccessor
    }
    /// Whether it is a "remember me" token.
    public var kind: RefreshTokenKind { self.session.kind }
    /// The app the session was started for, when known.
    public var clientID: String? { self.session.clientID }
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
    /// Whether it is a "remember me" session.
    public var kind: RefreshTokenKind
    /// Its state.
    public var state: SessionState
    /// When the session started.
    public var startedAt: Timestamp
    /// When it was last used (sign-in or refresh).
    public var lastSeenAt: Timestamp
    /// When the user last proved an identity in it (sign-in or re-authentication).
    public var authenticatedAt: Timestamp
    /// Why it ended, once it has.
    public var endReason: String?
    /// Whether its user still exists (not deleted).
    public var userIsActive: Bool

    /// Whether the session can be used: active, of a user that was not deleted.
    public var isUsable: Bool { self.state == .active && self.userIsActive }

    /// Creates a record.
    public init(
        sessionID: UUID,
        userID: UUID,
        provider: String,
        clientID: String?,
        kind: RefreshTokenKind,
        state: SessionState,
        startedAt: Timestamp,
        lastSeenAt: Timestamp,
        authenticatedAt: Timestamp,
        endReason: String?,
        userIsActive: Bool
    ) {
        self.sessionID = sessionID
        self.userID = userID
        self.provider = provider
        self.clientID = clientID
        self.kind = kind
        self.state = state
        self.startedAt = startedAt
        self.lastSeenAt = lastSeenAt
        self.authenticatedAt = authenticatedAt
        self.endReason = endReason
        self.userIsActive = userIsActive
    }
}

/// One identity row of the `identities` projection.
public struct IdentityRecord: Sendable, Equatable {
    /// The provider.
    public var provider: String
    /// The keyed subject hash, of the generation the row was linked under.
    public var subjectHash: String
    /// The user it points at.
    public var userID: UUID
    /// Whether the identity was released by an account deletion.
    public var isReleased: Bool
    /// Whether the user it points at exists (not deleted).
    public var userIsActive: Bool

    /// Creates a record.
    public init(provider: String, subjectHash: String, userID: UUID, isReleased: Bool, userIsActive: Bool) {
        self.provider = provider
        self.subjectHash = subjectHash
        self.userID = userID
        self.isReleased = isReleased
        self.userIsActive = userIsActive
    }
}
