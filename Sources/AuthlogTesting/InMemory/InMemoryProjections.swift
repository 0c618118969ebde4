import AuthlogCore
import Foundation

/// The projection tables `users`, `identities`, `sessions` and `refresh_tokens` in memory, changed only by
/// ``ProjectionChange``s, with the semantics of AuthlogStore's `ProjectionWriter`: inserts keep the first
/// row of a key, and state changes only move rows still in the state they leave.
///
/// `signins_daily` is not kept: no port reads it (the reports read it in PostgreSQL only).
struct InMemoryProjections: Sendable {
    struct User: Sendable {
        var createdAt: Timestamp
        var firstProvider: String
        var isDeleted = false
        var deletedAt: Timestamp?
    }

    struct Identity: Sendable {
        var provider: String
        var subjectHash: String
        var userID: UUID
        var linkedAt: Timestamp
        var releasedAt: Timestamp?
    }

    struct Session: Sendable {
        var sessionID: UUID
        var userID: UUID
        var provider: String
        var clientID: String?
        var kind: RefreshTokenKind
        var state: SessionState
        var startedAt: Timestamp
        var lastSeenAt: Timestamp
        var authenticatedAt: Timestamp
        var endedAt: Timestamp?
        var endReason: String?
    }

    struct RefreshToken: Sendable {
        var row: RefreshTokenRow
        var state: RefreshTokenState
        var rotatedAt: Timestamp?
        var revokedAt: Timestamp?
        var revokeReason: String?
        var successorSealed: [UInt8]?
    }

    struct IdentityKey: Hashable, Sendable {
        var provider: String
        var subjectHash: String
    }

    /// `users`, by user id.
    private(set) var users: [UUID: User] = [:]
    /// `identities`, by (provider, subject hash).
    private(set) var identities: [IdentityKey: Identity] = [:]
    /// `sessions`, by session id.
    private(set) var sessions: [UUID: Session] = [:]
    /// `refresh_tokens`, in insertion order (the table is small in tests; lookups scan it).
    private(set) var refreshTokens: [RefreshToken] = []
    /// `identity_lockouts`, by (provider, subject hash).
    var identityLockouts: [IdentityKey: IdentityLockoutRow] = [:]

    /// Whether the user exists and is not deleted (`coalesce(u.status = 'active', false)`).
    func userIsActive(_ userID: UUID) -> Bool {
        guard let user = self.users[userID] else { return false }
        return !user.isDeleted
    }

    /// Applies one change.
    mutating func apply(_ change: ProjectionChange) {
        switch change {
        case .insertUser, .deleteUser:
            self.applyToUsers(change)
        case .linkIdentity, .unlinkIdentity, .releaseUserIdentities:
            self.applyToIdentities(change)
        case .startSession, .reauthenticateSession, .touchSession, .endSession, .endUserSessions:
            self.applyToSessions(change)
        case .issueRefreshToken, .rotateRefreshToken, .revokeFamily, .revokeToken, .revokeSessionTokens,
            .revokeUserTokens, .sealSuccessor:
            self.applyToRefreshTokens(change)
        case .countSignin:
            break
        case .countIdentityFailure, .clearIdentityFailures, .lockIdentity, .unlockIdentity:
            self.applyToIdentityLockouts(change)
        }
    }

    private mutating func applyToUsers(_ change: ProjectionChange) {
        switch change {
        case .insertUser(let userID, let createdAt, let provider):
            guard self.users[userID] == nil else { return }
            self.users[userID] = User(createdAt: createdAt, firstProvider: provider)
        case .deleteUser(let userID, let at):
            guard var user = self.users[userID], !user.isDeleted else { return }
            user.isDeleted = true
            user.deletedAt = at
            self.users[userID] = user
        default:
            break
        }
    }

    private mutating func applyToIdentities(_ change: ProjectionChange) {
        switch change {
        case .linkIdentity(let provider, let subjectHash, let userID, let at):
            let key = IdentityKey(provider: provider, subjectHash: subjectHash)
            guard self.identities[key] == nil else { return }
            self.identities[key] = Identity(provider: provider, subjectHash: subjectHash, userID: userID, linkedAt: at)
        case .unlinkIdentity(let provider, let subjectHash):
            self.identities[IdentityKey(provider: provider, subjectHash: subjectHash)] = nil
        case .releaseUserIdentities(let userID, let at):
            for (key, identity) in self.identities where identity.userID == userID && identity.releasedAt == nil {
                self.identities[key]?.releasedAt = at
            }
        default:
            break
        }
    }

    private mutating func applyToSessions(_ change: ProjectionChange) {
        switch change {
        case .startSession(let sessionID, let userID, let provider, let clientID, let kind, let at):
            guard self.sessions[sessionID] == nil else { return }
            self.sessions[sessionID] = Session(
                sessionID: sessionID,
                userID: userID,
                provider: provider,
                clientID: clientID,
                kind: kind,
                state: .active,
                startedAt: at,
                lastSeenAt: at,
                authenticatedAt: at
            )
        case .reauthenticateSession(let sessionID, let at):
            guard let session = self.sessions[sessionID], session.state == .active, session.authenticatedAt < at
            else { return }
            self.sessions[sessionID]?.authenticatedAt = at
        case .touchSession(let sessionID, let at):
            guard let session = self.sessions[sessionID], session.state == .active, session.lastSeenAt < at
            else { return }
            self.sessions[sessionID]?.lastSeenAt = at
        case .endSession(let sessionID, let state, let reason, let at):
            guard self.sessions[sessionID]?.state == .active else { return }
            self.end(sessionID, state: state, reason: reason, at: at)
        case .endUserSessions(let userID, let provider, let state, let reason, let at):
            for (sessionID, session) in self.sessions
            where session.userID == userID && session.state == .active
                && (provider == nil || session.provider == provider)
            {
                self.end(sessionID, state: state, reason: reason, at: at)
            }
        default:
            break
        }
    }

    private mutating func end(_ sessionID: UUID, state: SessionState, reason: String?, at: Timestamp) {
        self.sessions[sessionID]?.state = state
        self.sessions[sessionID]?.endReason = reason
        self.sessions[sessionID]?.endedAt = at
    }

    private mutating func applyToRefreshTokens(_ change: ProjectionChange) {
        switch change {
        case .issueRefreshToken(let row):
            // Both `token_hash` (the key) and `token_id` are unique; the insert does nothing on either conflict.
            let exists = self.refreshTokens.contains {
                $0.row.tokenHash == row.tokenHash || $0.row.tokenID == row.tokenID
            }
            guard !exists else { return }
            self.refreshTokens.append(RefreshToken(row: row, state: .active))
        case .rotateRefreshToken(let tokenID, _, let at):
            for index in self.refreshTokens.indices
            where self.refreshTokens[index].row.tokenID == tokenID && self.refreshTokens[index].state == .active {
                self.refreshTokens[index].state = .rotated
                self.refreshTokens[index].rotatedAt = at
            }
        case .revokeFamily(let familyID, _, let reason, let at):
            self.revokeTokens(reason: reason, at: at) { $0.familyID == familyID }
        case .revokeToken(let tokenID, _, let reason, let at):
            self.revokeTokens(reason: reason, at: at) { $0.tokenID == tokenID }
        case .revokeSessionTokens(let sessionID, let reason, let at):
            self.revokeTokens(reason: reason, at: at) { $0.sessionID == sessionID }
        case .revokeUserTokens(let userID, let provider, let reason, let at):
            // `provider = $p` is never true for a token without a provider.
            self.revokeTokens(reason: reason, at: at) {
                $0.userID == userID && (provider == nil || $0.provider == provider)
            }
        case .sealSuccessor(let successor):
            self.seal(successor)
        default:
            break
        }
    }

    private mutating func revokeTokens(reason: String, at: Timestamp, where matches: (RefreshTokenRow) -> Bool) {
        for index in self.refreshTokens.indices
        where self.refreshTokens[index].state != .revoked && matches(self.refreshTokens[index].row) {
            self.refreshTokens[index].state = .revoked
            self.refreshTokens[index].revokedAt = at
            self.refreshTokens[index].revokeReason = reason
            self.refreshTokens[index].successorSealed = nil
        }
    }

    /// Keeps the box on the rotated token's row and drops those of the rest of its family, as the writer's
    /// `sealSuccessors` statement does.
    private mutating func seal(_ successor: SealedSuccessor) {
        for index in self.refreshTokens.indices where self.refreshTokens[index].row.familyID == successor.familyID {
            if self.refreshTokens[index].row.tokenID == successor.tokenID {
                if self.refreshTokens[index].state == .rotated {
                    self.refreshTokens[index].successorSealed = successor.sealed
                }
            } else {
                self.refreshTokens[index].successorSealed = nil
            }
        }
    }
}
