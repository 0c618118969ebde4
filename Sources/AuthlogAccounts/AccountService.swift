public import AuthlogCore
import AuthlogProviders
import Foundation

/// What the app's `getCredentialState` said about the user's Apple ID (or another provider's credential).
public enum CredentialState: String, Sendable, CaseIterable {
    /// The credential is valid: nothing changes.
    case authorized
    /// The user revoked the app's access: `provider.consent_revoked`, and the provider's sessions end.
    case revoked
    /// The provider knows no credential of the user for this app (signed out of the Apple ID, the app's
    /// access removed before this device asked, a transferred app): the provider's sessions end, as Apple's
    /// own guidance says, but no consent revocation is recorded, since nothing says the user withdrew it.
    case notFound = "not_found"
}

/// The signed-in user's account: credential state, re-authentication, linking and unlinking identities,
/// deletion. Every change is an event; every refusal is recorded (`account.action_refused`, or
/// `signin.failed` for a refused proof).
public struct AccountService: Sendable {
    let dependencies: ServiceDependencies
    let signin: SigninService
    let tokens: TokenService
    let deletion: AccountDeletion

    /// Creates the service.
    public init(
        dependencies: ServiceDependencies,
        signin: SigninService,
        tokens: TokenService,
        revoker: ProviderRevoker
    ) {
        self.dependencies = dependencies
        self.signin = signin
        self.tokens = tokens
        self.deletion = AccountDeletion(dependencies: dependencies, revoker: revoker)
    }

    /// `POST /v1/me/credential-state`: `revoked` records `provider.consent_revoked` (source
    /// `app_credential_state`) and ends every session of the user with that provider (`session.revoked`,
    /// `credential_revoked`); `not_found` ends them with `credential_not_found`; `authorized` changes nothing.
    /// A repeated report finds no session left to end and records nothing.
    /// - Throws: ``ServiceError`` 401 for a bad bearer, 422 `identity_not_linked` when the user has no identity
    ///   of that provider, 503 when the database is down.
    public func reportCredentialState(
        bearer: String,
        provider: String,
        state: CredentialState,
        metadata: RequestMetadata
    ) async throws(ServiceError) {
        let (_, session) = try await self.tokens.authenticate(bearer: bearer)
        let userID = session.userID
        let identities = try await self.dependencies.storeCall {
            try await self.dependencies.queries.identities(of: userID)
        }
        guard identities.contains(where: { $0.provider == provider }) else {
            throw try await self.refuse(
                .credentialState,
                reason: AccountRefusalReason.identityNotLinked.rawValue,
                answer: ServiceError(
                    .unprocessableContent,
                    AccountRefusalReason.identityNotLinked.rawValue,
                    "No identity of that provider is linked."
                ),
                session: session,
                provider: provider,
                metadata: metadata
            )
        }
        let reason: SessionEndReason
        switch state {
        case .authorized: return
        case .revoked: reason = .credentialRevoked
        case .notFound: reason = .credentialNotFound
        }
        let consent = state == .revoked ? ConsentRevocationSource.appCredentialState : nil
        try await self.endSessions(
            of: userID,
            provider: provider,
            reason: reason,
            consent: consent.map { ($0, nil) },
            metadata: metadata
        )
    }

    /// Ends every active session of `userID` with `provider` that `include` accepts (see ``SessionEnder``).
    @discardableResult
    func endSessions(
        of userID: UUID,
        provider: String,
        reason: SessionEndReason,
        consent: (source: ConsentRevocationSource, noticeID: String?)?,
        extra: [EventEnvelope] = [],
        metadata: RequestMetadata,
        where include: (SessionRecord) -> Bool = { _ in true }
    ) async throws(ServiceError) -> Int {
        try await SessionEnder(dependencies: self.dependencies).endSessions(
            of: userID,
            provider: provider,
            reason: reason,
            consent: consent,
            extra: extra,
            metadata: metadata,
            where: include
        )
    }

    /// Requires the session's last authentication to lie within the re-authentication window; otherwise
    /// records the refusal and throws 401 `reauthentication_required`.
    func requireRecentAuthentication(
        _ session: SessionRecord,
        for action: AccountAction,
        provider: String? = nil,
        metadata: RequestMetadata
    ) async throws(ServiceError) {
        let window = self.dependencies.settings.reauthenticationWindow
        guard session.authenticatedAt.adding(seconds: window) < .now() else { return }
        throw try await self.refuse(
            action,
            reason: AccountRefusalReason.reauthenticationRequired.rawValue,
            answer: ServiceError(
                .unauthorized,
                AccountRefusalReason.reauthenticationRequired.rawValue,
                "This needs a sign-in within the last \(window) seconds: call /v1/me/reauthenticate first.",
                headers: [.wwwAuthenticate: "Bearer error=\"insufficient_user_authentication\""]
            ),
            session: session,
            provider: provider,
            metadata: metadata
        )
    }

    /// Records `account.action_refused` for the session's user and returns the answer to throw.
    func refuse(
        _ action: AccountAction,
        reason: String,
        answer: ServiceError,
        session: SessionRecord,
        provider: String?,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> ServiceError {
        let event = try self.dependencies.event(
            metadata,
            stream: .user(session.userID),
            outcome: .failure,
            reason: reason,
            provider: provider,
            userID: session.userID,
            sessionID: session.sessionID,
            at: .now(),
            data: AccountActionRefused(action: action, provider: provider)
        )
        try await self.dependencies.append(AppendCommand(event))
        return answer
    }
}

extension AccountService {
    /// Records a request of the signed-in user refused before its body could be read (too large, malformed,
    /// wrong media type) and returns the answer to give; a bad bearer gets its 401 instead.
    public func refuseUnreadable(
        bearer: String,
        action: AccountAction,
        reason: RequestRefusalReason,
        answer: ServiceError,
        metadata: RequestMetadata
    ) async -> ServiceError {
        do {
            let (_, session) = try await self.tokens.authenticate(bearer: bearer)
            return try await self.refuse(
                action,
                reason: reason.rawValue,
                answer: answer,
                session: session,
                provider: nil,
                metadata: metadata
            )
        } catch {
            return error
        }
    }
}
