public import AuthlogCore
public import Foundation

/// ``SessionReads`` over the in-memory projections, with the filters and order of AuthlogStore's
/// `SessionQueries`.
public struct InMemorySessionReads: SessionReads {
    let storage: InMemoryStorage

    /// The identity rows of `provider` whose subject hash is one of `subjectHashes`, keyed by subject hash;
    /// released rows included. As in PostgreSQL, only lowercase hex hashes are looked up.
    public func identities(provider: String, subjectHashes: [String]) async throws -> [String: IdentityRecord] {
        let wanted = Set(subjectHashes.filter { $0.utf8.allSatisfy(Self.isHexDigit) })
        return self.storage.withState { state in
            var found: [String: IdentityRecord] = [:]
            for identity in state.projections.identities.values
            where identity.provider == provider && wanted.contains(identity.subjectHash) {
                found[identity.subjectHash] = Self.record(identity, in: state.projections)
            }
            return found
        }
    }

    /// The linked (not released) identities of a user, oldest first (then by provider).
    public func identities(of userID: UUID) async throws -> [IdentityRecord] {
        self.storage.withState { state in
            state.projections.identities.values
                .filter { $0.userID == userID && $0.releasedAt == nil }
                .sorted { ($0.linkedAt, $0.provider) < ($1.linkedAt, $1.provider) }
                .map { Self.record($0, in: state.projections) }
        }
    }

    /// The refresh token whose SHA-256 is `hash`, if any and if its session exists.
    public func refreshToken(hash: [UInt8], withSessionSignin: Bool) async throws -> RefreshTokenRecord? {
        self.storage.withState { state in
            guard let token = state.projections.refreshTokens.first(where: { $0.row.tokenHash == hash }),
                let session = state.projections.sessions[token.row.sessionID]
            else { return nil }
            return RefreshTokenRecord(
                tokenID: token.row.tokenID,
                familyID: token.row.familyID,
                state: token.state,
                expiresAt: token.row.expiresAt,
                session: Self.record(session, in: state.projections),
                sessionVersion: Self.version(of: session.sessionID, in: state.log),
                rotatedAt: token.rotatedAt,
                sealedSuccessor: token.successorSealed,
                sessionSignin: withSessionSignin ? Self.sessionSignin(of: session, in: state) : nil,
                dpopJKT: token.row.dpopJKT
            )
        }
    }

    /// The session's sign-in, the kinds flagged on it (admitted only) since it started, and its user's key, as
    /// AuthlogStore's `SessionQueries` reads them.
    private static func sessionSignin(
        of session: InMemoryProjections.Session,
        in state: InMemoryStorage.State
    ) -> SessionSignin {
        let events = state.log.envelopes.filter { $0.userID == session.userID && $0.sessionID == session.sessionID }
        let signin = events.first { $0.type == .signinSucceeded && $0.occurredAt == session.startedAt }
        let kinds = events.filter { $0.type == .signinFlagged && $0.occurredAt >= session.startedAt }
            .compactMap { try? $0.payload(as: SigninFlagged.self) }
            .filter { $0.decision.admits }
            .flatMap { $0.judgements.map(\.kind) }
        return SessionSignin(
            signin: signin.map(InMemorySigninHistory.pastSignin),
            flaggedKinds: Set(kinds),
            wrappedUserKey: state.tables.userKeys[session.userID],
            address: signin?.ip
        )
    }

    /// One session, if it exists.
    public func session(_ sessionID: UUID) async throws -> SessionRecord? {
        self.storage.withState { state in
            state.projections.sessions[sessionID].map { Self.record($0, in: state.projections) }
        }
    }

    /// The active sessions of a user, or of a user with one provider, by start time, with each session
    /// stream's version.
    public func activeSessions(
        of userID: UUID,
        provider: String? = nil
    ) async throws -> [(session: SessionRecord, version: Int32)] {
        let rows = self.storage.withState { state in
            state.projections.sessions.values
                .filter { $0.userID == userID && $0.state == .active && (provider == nil || $0.provider == provider) }
                .sorted { ($0.startedAt, $0.sessionID.uuidString) < ($1.startedAt, $1.sessionID.uuidString) }
                .map {
                    VersionedSession(
                        session: Self.record($0, in: state.projections),
                        version: Self.version(of: $0.sessionID, in: state.log)
                    )
                }
        }
        return rows.map { ($0.session, $0.version) }
    }

    /// Whether a user with this id was ever registered (deleted users included).
    public func userExists(_ userID: UUID) async throws -> Bool {
        self.storage.withState { $0.projections.users[userID] != nil }
    }

    /// Whether the user exists and is not deleted.
    public func userIsActive(_ userID: UUID) async throws -> Bool {
        self.storage.withState { $0.projections.userIsActive(userID) }
    }

    /// Always: memory answers.
    public func isReachable() async -> Bool { true }

    /// The version of `session-<sessionID>`: 0 when it has no events.
    static func version(of sessionID: UUID, in log: InMemoryEventLog) -> Int32 {
        log.version(of: StreamName(category: "session", id: sessionID.lowercased).rawValue)
    }

    /// The record of a session row, with whether its user is active.
    static func record(_ session: InMemoryProjections.Session, in projections: InMemoryProjections) -> SessionRecord {
        SessionRecord(
            sessionID: session.sessionID,
            userID: session.userID,
            provider: session.provider,
            clientID: session.clientID,
            kind: session.kind,
            state: session.state,
            startedAt: session.startedAt,
            lastSeenAt: session.lastSeenAt,
            authenticatedAt: session.authenticatedAt,
            endReason: session.endReason,
            userIsActive: projections.userIsActive(session.userID)
        )
    }

    private static func record(
        _ identity: InMemoryProjections.Identity,
        in projections: InMemoryProjections
    ) -> IdentityRecord {
        IdentityRecord(
            provider: identity.provider,
            subjectHash: identity.subjectHash,
            userID: identity.userID,
            isReleased: identity.releasedAt != nil,
            userIsActive: projections.userIsActive(identity.userID)
        )
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
    }
}

/// A session with its stream's version (a tuple is not `Sendable` out of the lock).
struct VersionedSession: Sendable {
    var session: SessionRecord
    var version: Int32
}
