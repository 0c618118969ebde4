public import Foundation

/// One change to a projection table, decided by ``ProjectionReducer`` from one event.
///
/// Changes are idempotent in the sense the store needs: inserts keep the first row for a key, state
/// changes only move rows that are still in the state they leave. Changes to different tables commute,
/// so the store may group them by table as long as it keeps their order within a table.
public enum ProjectionChange: Sendable, Equatable {
    /// A user appears (`users`).
    case insertUser(userID: UUID, createdAt: Timestamp, provider: String)
    /// A user is marked deleted (`users`).
    case deleteUser(userID: UUID, at: Timestamp)
    /// An identity points at a user (`identities`); the first link of a key wins.
    case linkIdentity(provider: String, subjectHash: String, userID: UUID, at: Timestamp)
    /// An identity is removed (`identities`).
    case unlinkIdentity(provider: String, subjectHash: String)
    /// All identities of a deleted user are released (`identities`): the rows stay, marked, so that the
    /// identity's next registration hashes its subject under the next generation and nothing in the new
    /// user's rows or events equals a value of the old one's.
    case releaseUserIdentities(userID: UUID, at: Timestamp)
    /// A session starts (`sessions`).
    case startSession(
        sessionID: UUID,
        userID: UUID,
        provider: String,
        clientID: String?,
        kind: RefreshTokenKind,
        at: Timestamp
    )
    /// The user proved an identity again inside the session (`sessions.authenticated_at`).
    case reauthenticateSession(sessionID: UUID, at: Timestamp)
    /// An active session was used (`sessions`).
    case touchSession(sessionID: UUID, at: Timestamp)
    /// An active session ends (`sessions`).
    case endSession(sessionID: UUID, state: SessionState, reason: String?, at: Timestamp)
    /// Every active session of a user, or of a user with one provider, ends (`sessions`).
    case endUserSessions(userID: UUID, provider: String?, state: SessionState, reason: String?, at: Timestamp)
    /// A refresh token is stored by its hash (`refresh_tokens`).
    case issueRefreshToken(RefreshTokenRow)
    /// An active refresh token is spent by rotation (`refresh_tokens`).
    case rotateRefreshToken(tokenID: UUID, sessionID: UUID, at: Timestamp)
    /// Every token of a rotation family is revoked (`refresh_tokens`).
    case revokeFamily(familyID: UUID, sessionID: UUID, reason: String, at: Timestamp)
    /// One token is revoked (`refresh_tokens`).
    case revokeToken(tokenID: UUID, sessionID: UUID, reason: String, at: Timestamp)
    /// Every token of a session is revoked (`refresh_tokens`).
    case revokeSessionTokens(sessionID: UUID, reason: String, at: Timestamp)
    /// Every token of a user, or of a user with one provider, is revoked (`refresh_tokens`).
    case revokeUserTokens(userID: UUID, provider: String?, reason: String, at: Timestamp)
    /// A rotated token keeps the answer its rotation gave, sealed (`refresh_tokens.successor_sealed`), and
    /// the other tokens of its family drop theirs. Not decided by the reducer: it comes with the command
    /// that rotates (``AppendCommand/sealedSuccessor``), and a rebuild keeps the live value.
    case sealSuccessor(SealedSuccessor)
    /// One sign-in is counted (`signins_daily`).
    case countSignin(day: Int64, provider: String, outcome: Outcome)
    /// A failed proof the provider vouched for is counted against its identity (`identity_lockouts`, the
    /// newest ``IdentityLockout/keptFailures`` only).
    case countIdentityFailure(provider: String, subjectHash: String, at: Timestamp)
    /// A sign-in of the identity succeeded: its counted failures are forgotten, as NIST SP 800-63B counts
    /// consecutive failures (`identity_lockouts`; the back-off level stays, and decays after a window).
    case clearIdentityFailures(provider: String, subjectHash: String)
    /// An identity is locked until `until` at back-off `level` (`identity_lockouts`).
    case lockIdentity(provider: String, subjectHash: String, level: Int, at: Timestamp, until: Timestamp)
    /// An identity's lock is lifted (`identity_lockouts`); an operator's unlock also forgets its counted
    /// failures and back-off level, an expiry keeps them (the next lock backs off further).
    case unlockIdentity(provider: String, subjectHash: String, byOperator: Bool, at: Timestamp)

    /// The projection table the change writes.
    public var table: ProjectionTable {
        switch self {
        case .insertUser, .deleteUser: return .users
        case .linkIdentity, .unlinkIdentity, .releaseUserIdentities: return .identities
        case .startSession, .touchSession, .reauthenticateSession, .endSession, .endUserSessions: return .sessions
        case .issueRefreshToken, .rotateRefreshToken, .revokeFamily, .revokeToken, .revokeSessionTokens,
            .revokeUserTokens, .sealSuccessor:
            return .refreshTokens
        case .countSignin: return .signinsDaily
        case .countIdentityFailure, .clearIdentityFailures, .lockIdentity, .unlockIdentity: return .identityLockouts
        }
    }
}

/// The projection tables of events.md.
public enum ProjectionTable: String, Sendable, CaseIterable {
    case users
    case identities
    case sessions
    case refreshTokens = "refresh_tokens"
    case signinsDaily = "signins_daily"
    case identityLockouts = "identity_lockouts"
}

/// The life-cycle state of a session.
public enum SessionState: String, Sendable, Codable {
    case active
    case loggedOut = "logged_out"
    case revoked
    case expired
}

/// A refresh token row as the `refresh_tokens` projection stores it.
public struct RefreshTokenRow: Sendable, Equatable {
    /// SHA-256 of the token (the key).
    public var tokenHash: [UInt8]
    /// The token's id, as events name it.
    public var tokenID: UUID
    /// The rotation family.
    public var familyID: UUID
    /// The token it replaced, if it came from a rotation.
    public var parentID: UUID?
    /// The session it belongs to.
    public var sessionID: UUID
    /// The user it belongs to.
    public var userID: UUID
    /// The provider the session was signed in with.
    public var provider: String?
    /// Whether it is a "remember me" token.
    public var kind: RefreshTokenKind
    /// When it was issued.
    public var issuedAt: Timestamp
    /// When it expires.
    public var expiresAt: Timestamp
    /// The thumbprint of the DPoP key its family is bound to, when bound.
    public var dpopJKT: String?

    /// Creates a row.
    public init(
        tokenHash: [UInt8],
        tokenID: UUID,
        familyID: UUID,
        parentID: UUID?,
        sessionID: UUID,
        userID: UUID,
        provider: String?,
        kind: RefreshTokenKind,
        issuedAt: Timestamp,
        expiresAt: Timestamp,
        dpopJKT: String? = nil
    ) {
        self.dpopJKT = dpopJKT
        self.tokenHash = tokenHash
        self.tokenID = tokenID
        self.familyID = familyID
        self.parentID = parentID
        self.sessionID = sessionID
        self.userID = userID
        self.provider = provider
        self.kind = kind
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// The answer a rotation gave, sealed for the rotated token's holder, kept with that token's row for the
/// refresh-token reuse grace window (docs/signin.md).
public struct SealedSuccessor: Sendable, Equatable {
    /// The rotated (spent) token whose row keeps the box.
    public var tokenID: UUID
    /// Its rotation family: the family's other rows drop their boxes.
    public var familyID: UUID
    /// Its session.
    public var sessionID: UUID
    /// The AEAD box; only a key derived from the spent token opens it.
    public var sealed: [UInt8]

    /// Creates a sealed successor.
    public init(tokenID: UUID, familyID: UUID, sessionID: UUID, sealed: [UInt8]) {
        self.tokenID = tokenID
        self.familyID = familyID
        self.sessionID = sessionID
        self.sealed = sealed
    }
}
