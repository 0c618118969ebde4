public import AuthlogCore
public import AuthlogProviders
import Foundation

extension AccountService {
    /// `POST /v1/me/reauthenticate`: a proof of one of the user's own identities moves the session's
    /// authentication time to now (`session.reauthenticated`). Returns that time.
    /// - Throws: ``ServiceError`` 401 for a bad bearer or a refused proof (recorded as `signin.failed`), 403
    ///   `identity_mismatch` for someone else's identity (recorded), 503 when the database is down.
    public func reauthenticate(
        bearer: String,
        provider: String,
        proof: SigninProof,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> Timestamp {
        let (_, session) = try await self.tokens.authenticate(bearer: bearer)
        let (identity, standing) = try await self.verify(
            proof,
            provider: provider,
            for: .reauthenticate,
            session,
            metadata
        )
        guard case .linked(let owner, let subjectHash) = standing, owner == session.userID else {
            throw try await self.refuse(
                .reauthenticate,
                reason: AccountRefusalReason.identityMismatch.rawValue,
                answer: ServiceError(
                    .forbidden,
                    AccountRefusalReason.identityMismatch.rawValue,
                    "The proof is for an identity of another user."
                ),
                session: session,
                provider: identity.provider,
                metadata: metadata
            )
        }
        let now = Timestamp.now()
        let event = try self.dependencies.event(
            metadata,
            stream: .session(session.sessionID),
            provider: identity.provider,
            userID: session.userID,
            sessionID: session.sessionID,
            at: now,
            data: SessionReauthenticated(method: proof.method, subjectHash: subjectHash)
        )
        try await self.dependencies.append(AppendCommand(event))
        return now
    }

    /// `POST /v1/me/identities/{provider}`: links the identity a proof shows to the signed-in user
    /// (`identity.linked`, policy `reauthenticated`). Linking an identity the user already has changes nothing.
    /// - Throws: ``ServiceError`` 401 `reauthentication_required` without a recent authentication, 401 for a
    ///   refused proof, 409 `identity_in_use` when another user holds it (each recorded), 503.
    public func link(
        bearer: String,
        provider: String,
        proof: SigninProof,
        metadata: RequestMetadata
    ) async throws(ServiceError) {
        let (_, session) = try await self.tokens.authenticate(bearer: bearer)
        try await self.requireRecentAuthentication(session, for: .linkIdentity, provider: provider, metadata: metadata)
        let (identity, standing) = try await self.verify(
            proof,
            provider: provider,
            for: .linkIdentity,
            session,
            metadata
        )
        let subjectHash: String
        switch standing {
        case .linked(let owner, _) where owner == session.userID:
            return
        case .linked:
            throw try await self.refuse(
                .linkIdentity,
                reason: AccountRefusalReason.identityInUse.rawValue,
                answer: ServiceError(
                    .conflict,
                    AccountRefusalReason.identityInUse.rawValue,
                    "This identity belongs to another account."
                ),
                session: session,
                provider: identity.provider,
                metadata: metadata
            )
        case .unregistered(let hash):
            subjectHash = hash
        }
        try await IdentityRegistry(dependencies: self.dependencies).remember(
            identity,
            subjectHash: subjectHash,
            userID: session.userID
        )
        let event = try self.dependencies.event(
            metadata,
            stream: .user(session.userID),
            provider: identity.provider,
            userID: session.userID,
            sessionID: session.sessionID,
            at: .now(),
            data: IdentityLinked(provider: identity.provider, subjectHash: subjectHash, policy: "reauthenticated")
        )
        try await self.dependencies.append(AppendCommand(event))
    }

    /// `DELETE /v1/me/identities/{provider}`: unlinks the user's identities of that provider
    /// (`identity.unlinked` each) and forgets what they proved (verified email, revocation credential).
    /// - Throws: ``ServiceError`` 401 `reauthentication_required`, 404 `identity_not_linked`, 409
    ///   `last_identity` (each recorded), 503.
    public func unlink(bearer: String, provider: String, metadata: RequestMetadata) async throws(ServiceError) {
        let (_, session) = try await self.tokens.authenticate(bearer: bearer)
        try await self.requireRecentAuthentication(
            session,
            for: .unlinkIdentity,
            provider: provider,
            metadata: metadata
        )
        let userID = session.userID
        let identities = try await self.dependencies.storeCall {
            try await self.dependencies.queries.identities(of: userID)
        }
        let unlinked = try await self.identitiesToUnlink(
            of: provider,
            among: identities,
            session: session,
            metadata: metadata
        )
        let now = Timestamp.now()
        var events: [EventEnvelope] = []
        for identity in unlinked {
            events.append(
                try self.dependencies.event(
                    metadata,
                    stream: .user(userID),
                    provider: provider,
                    userID: userID,
                    sessionID: session.sessionID,
                    at: now,
                    data: IdentityUnlinked(provider: provider, subjectHash: identity.subjectHash)
                )
            )
        }
        try await self.dependencies.append(AppendCommand(events: events))
        try await self.dependencies.storeCall {
            try await self.dependencies.emails.forget(userID: userID, provider: provider)
            for identity in unlinked {
                try await self.dependencies.credentials.forget(provider: provider, subjectHash: identity.subjectHash)
            }
        }
    }

    /// The user's identities of `provider`, when unlinking them leaves the user another one.
    /// - Throws: ``ServiceError`` 404 `identity_not_linked` or 409 `last_identity`, each recorded.
    private func identitiesToUnlink(
        of provider: String,
        among identities: [IdentityRecord],
        session: SessionRecord,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> [IdentityRecord] {
        let unlinked = identities.filter { $0.provider == provider }
        guard !unlinked.isEmpty else {
            throw try await self.refuse(
                .unlinkIdentity,
                reason: AccountRefusalReason.identityNotLinked.rawValue,
                answer: ServiceError(
                    .notFound,
                    AccountRefusalReason.identityNotLinked.rawValue,
                    "No identity of that provider is linked."
                ),
                session: session,
                provider: provider,
                metadata: metadata
            )
        }
        guard unlinked.count < identities.count else {
            throw try await self.refuse(
                .unlinkIdentity,
                reason: AccountRefusalReason.lastIdentity.rawValue,
                answer: ServiceError(
                    .conflict,
                    AccountRefusalReason.lastIdentity.rawValue,
                    "The last identity cannot be unlinked: link another one first, or delete the account."
                ),
                session: session,
                provider: provider,
                metadata: metadata
            )
        }
        return unlinked
    }

    /// `DELETE /v1/me`: deletes the signed-in user's account (see ``AccountDeletion``).
    /// - Throws: ``ServiceError`` 401 `reauthentication_required` (recorded), 503.
    public func deleteAccount(
        bearer: String,
        metadata: RequestMetadata
    ) async throws(ServiceError)
        -> [String: ProviderRevocationResult]
    {
        let (_, session) = try await self.tokens.authenticate(bearer: bearer)
        try await self.requireRecentAuthentication(session, for: .deleteAccount, metadata: metadata)
        return try await self.deletion.delete(userID: session.userID, requestedBy: "user", metadata: metadata)
    }

    /// Verifies a proof presented inside a session; a refusal is recorded as `signin.failed` with the action
    /// and the session's user.
    private func verify(
        _ proof: SigninProof,
        provider: String,
        for action: AccountAction,
        _ session: SessionRecord,
        _ metadata: RequestMetadata
    ) async throws(ServiceError) -> (VerifiedIdentity, IdentityStanding) {
        switch await self.signin.verifiedIdentity(provider: provider, proof: proof) {
        case .failure(let refusal):
            throw await self.signin.record(
                refusal,
                method: proof.method,
                action: action,
                metadata: metadata,
                userID: session.userID
            )
        case .success(let identity):
            let standing = try await IdentityRegistry(dependencies: self.dependencies).standing(of: identity)
            return (identity, standing)
        }
    }
}
