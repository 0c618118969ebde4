import AuthlogCore
import Foundation

extension AccountService {
    /// `DELETE /v1/me/sessions/{id}`: ends one active session of the caller's (their own included) with
    /// `session.revoked`, reason `user_revoked`, actor `user`.
    /// - Throws: ``ServiceError`` 401 for a bad bearer; 404 `not_found` (recorded as `account.action_refused`)
    ///   when `sessionID` is malformed, unknown, ended or another user's, the same answer for each so that
    ///   existence does not leak; 503 when the database is down.
    public func endOwnSession(
        bearer: String,
        sessionID text: String,
        metadata: RequestMetadata
    ) async throws(ServiceError) {
        let (_, session) = try await self.tokens.authenticate(bearer: bearer)
        var ended = 0
        if text.utf8.count == 36, let target = UUID(uuidString: text) {
            ended = try await SessionEnder(dependencies: self.dependencies).endSessions(
                of: session.userID,
                provider: nil,
                onlySession: target,
                reason: .userRevoked,
                actor: "user",
                metadata: metadata
            )
        }
        guard ended == 0 else { return }
        throw try await self.refuse(
            .endSession,
            reason: AccountRefusalReason.notFound.rawValue,
            answer: ServiceError(.notFound, "not_found", "You have no active session with this id."),
            session: session,
            provider: nil,
            metadata: metadata
        )
    }

    /// `POST /v1/me/sessions/revoke-others`: ends every active session of the caller's but the one whose
    /// token was presented (`session.revoked`, reason `user_revoked`, actor `user`), in one command. Returns
    /// how many ended (0 records nothing).
    /// - Throws: ``ServiceError`` 401 for a bad bearer, 409 when the sessions kept changing, 503 when the
    ///   database is down.
    public func revokeOtherSessions(bearer: String, metadata: RequestMetadata) async throws(ServiceError) -> Int {
        let (_, session) = try await self.tokens.authenticate(bearer: bearer)
        let current = session.sessionID
        return try await SessionEnder(dependencies: self.dependencies).endSessions(
            of: session.userID,
            provider: nil,
            reason: .userRevoked,
            actor: "user",
            metadata: metadata,
            where: { $0.sessionID != current }
        )
    }
}
