public import AuthlogCore
import AuthlogCrypto
public import AuthlogProviders
import AuthlogStore
import Foundation

/// Sign-in: verifies the provider proof, consumes the nonce once, registers the user on the identity's
/// first sign-in, starts a session and issues an access token and a refresh token — all events of one
/// command, so nothing is half-written. Every failure is a `signin.failed` event with its reason.
public struct SigninService: Sendable {
    private let dependencies: ServiceDependencies
    private let providers: [String: any IdentityProvider]

    /// Creates the service with the enabled providers.
    public init(dependencies: ServiceDependencies, providers: [any IdentityProvider]) {
        self.dependencies = dependencies
        self.providers = Dictionary(providers.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The names of the enabled providers.
    public var providerNames: [String] { self.providers.keys.sorted() }

    /// Issues a nonce for an identity-token request (`POST /v1/nonces`).
    /// - Throws: ``ServiceError`` when the database is down.
    public func issueNonce() async throws(ServiceError) -> (nonce: String, expiresAt: Timestamp) {
        let now = Timestamp.now()
        let expiresAt = now.adding(seconds: self.dependencies.settings.nonceLifetime)
        let nonce: String
        do {
            nonce = Base64URL.encode(try SecureRandom.bytes(count: 32))
        } catch {
            throw ServiceError(.internalServerError, "internal_error", "No randomness is available.")
        }
        let hash = SHA256.hash(Array(nonce.utf8))
        try await self.dependencies.storeCall {
            try await self.dependencies.nonces.recordIssued(hash: hash, at: now, expiresAt: expiresAt)
        }
        return (nonce, expiresAt)
    }

    /// Signs in with `proof` at provider `providerName`.
    /// - Throws: ``ServiceError``: 404 unknown provider, 401 with the reason code for a refused proof,
    ///   502 when the provider cannot be reached, 503 when the database is down. A `signin.failed` event is recorded for each refusal.
    public func signIn(
        provider providerName: String,
        proof: SigninProof,
        rememberMe: Bool,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> TokenResponse {
        guard let provider = self.providers[providerName] else {
            throw await self.refuse(
                provider: "unknown",
                reason: "unknown_provider",
                method: proof.method,
                metadata: metadata,
                answer: ServiceError(.notFound, "unknown_provider", "No provider of that name is enabled.")
            )
        }
        let identity: VerifiedIdentity
        do {
            identity = try await provider.verify(proof)
            try await self.consumeNonce(of: identity)
        } catch let error as ProviderError {
            throw await self.refuse(
                provider: providerName,
                reason: error.reason.rawValue,
                method: proof.method,
                metadata: metadata,
                answer: Self.answer(for: error)
            )
        } catch {
            let answer = ServiceError.failure(error)
            throw await self.refuse(
                provider: providerName,
                reason: answer.code,
                method: proof.method,
                metadata: metadata,
                answer: answer
            )
        }
        var metadata = metadata
        metadata.clientID = identity.clientID ?? metadata.clientID
        do {
            let response = try await self.startSession(
                for: identity,
                method: proof.method,
                rememberMe: rememberMe,
                metadata: metadata
            )
            self.dependencies.metrics.recordSignin(provider: providerName, outcome: "success")
            return response
        } catch {
            // A verified proof whose session could not be started is still an attempt: it is recorded.
            throw await self.refuse(
                provider: providerName,
                reason: error.code,
                method: proof.method,
                metadata: metadata,
                answer: error
            )
        }
    }

    /// Records a sign-in refused before its proof could be read (oversized or malformed body) and returns
    /// the answer to give.
    public func refuseUnreadable(
        provider providerName: String,
        reason: String,
        metadata: RequestMetadata,
        answer: ServiceError
    ) async -> ServiceError {
        let name = self.providers[providerName] == nil ? "unknown" : providerName
        return await self.refuse(provider: name, reason: reason, method: nil, metadata: metadata, answer: answer)
    }

    /// The HTTP answer for a refused proof: 502 when the provider cannot be reached (a 503 means only that
    /// our database is down), 401 otherwise.
    static func answer(for error: ProviderError) -> ServiceError {
        if error.reason == .providerUnavailable {
            return ServiceError(
                .badGateway,
                error.reason.rawValue,
                "The identity provider cannot be reached; try again.",
                headers: [.retryAfter: "5"]
            )
        }
        return ServiceError(.unauthorized, error.reason.rawValue, "The sign-in proof was refused: \(error.message).")
    }

    private func consumeNonce(of identity: VerifiedIdentity) async throws {
        guard let nonce = identity.nonce else { return }
        let hash = SHA256.hash(Array(nonce.utf8))
        switch try await self.dependencies.nonces.consume(provider: identity.provider, hash: hash, at: .now()) {
        case .accepted: return
        case .replayed: throw ProviderError(.nonceReplayed, "this nonce was used before")
        case .expired: throw ProviderError(.nonceExpired, "the issued nonce has expired")
        }
    }

    private func refuse(
        provider: String,
        reason: String,
        method: String?,
        metadata: RequestMetadata,
        answer: ServiceError
    ) async -> ServiceError {
        self.dependencies.metrics.recordSignin(provider: provider, outcome: "failure")
        do {
            let event = try metadata.envelope(
                stream: StreamName(category: "signin", id: provider),
                outcome: .failure,
                reason: reason,
                provider: provider,
                at: .now(),
                data: SigninFailed(reason: reason, method: method)
            )
            try await self.dependencies.store.append(event)
            return answer
        } catch {
            return ServiceError.failure(error)
        }
    }

    private func startSession(
        for identity: VerifiedIdentity,
        method: String,
        rememberMe: Bool,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> TokenResponse {
        let subjectHash = SubjectHash.of(provider: identity.provider, subject: identity.subject)
        try await self.saveProviderCredential(of: identity, subjectHash: subjectHash)
        var lastConflict = false
        for attempt in 0..<self.dependencies.settings.maximumAttempts {
            let existing = try await self.dependencies.storeCall {
                try await self.dependencies.queries.userID(provider: identity.provider, subjectHash: subjectHash)
            }
            // A conflict on the registration stream with the identity still unlinked means the name-based
            // id belongs to a deleted account: register under a fresh id instead.
            let newUserID =
                lastConflict && attempt > 1
                ? UUID.version7()
                : SubjectHash.registrationUserID(provider: identity.provider, subjectHash: subjectHash)
            let userID = existing ?? newUserID
            var sealedProfile: String?
            if existing == nil, let vault = self.dependencies.vault {
                sealedProfile = try await self.dependencies.storeCall {
                    try await vault.sealProfile(
                        displayName: identity.displayName,
                        email: identity.verifiedEmail,
                        for: userID
                    )
                }
            }
            let plan = try self.plan(
                identity: identity,
                subjectHash: subjectHash,
                method: method,
                rememberMe: rememberMe,
                userID: userID,
                isNewUser: existing == nil,
                sealedProfile: sealedProfile,
                metadata: metadata
            )
            do {
                try await self.dependencies.store.append(plan.command)
                return plan.response
            } catch let error as StoreError where error.code == .wrongExpectedVersion {
                lastConflict = true
                continue
            } catch {
                throw ServiceError.failure(error)
            }
        }
        throw ServiceError(.conflict, "conflict", "The sign-in collided with another one; try again.")
    }

    private func plan(
        identity: VerifiedIdentity,
        subjectHash: String,
        method: String,
        rememberMe: Bool,
        userID: UUID,
        isNewUser: Bool,
        sealedProfile: String?,
        metadata: RequestMetadata
    ) throws(ServiceError) -> (command: AppendCommand, response: TokenResponse) {
        let now = Timestamp.now()
        let sessionID = UUID.version7(at: now)
        let sessionStream = StreamName(category: "session", id: sessionID.lowercased)
        let userStream = StreamName(category: "user", id: userID.lowercased)
        let kind: RefreshTokenKind = rememberMe ? .rememberMe : .session
        let lifetime =
            rememberMe ? self.dependencies.settings.rememberMeLifetime : self.dependencies.settings.sessionLifetime
        do {
            let access = try self.dependencies.makeAccessToken(
                userID: userID,
                sessionID: sessionID,
                clientID: metadata.clientID,
                now: now
            )
            let refresh = try RefreshTokenSecret.make()
            let refreshID = UUID.version7(at: now)
            let refreshExpiresAt = now.adding(seconds: lifetime)
            var events: [EventEnvelope] = []
            var expectations: [StreamName: ExpectedVersion] = [sessionStream: .noStream]
            if isNewUser {
                events.append(
                    try metadata.envelope(
                        stream: userStream,
                        provider: identity.provider,
                        userID: userID,
                        at: now,
                        data: UserRegistered(
                            provider: identity.provider,
                            subjectHash: subjectHash,
                            sealedProfile: sealedProfile
                        )
                    )
                )
                expectations[userStream] = .noStream
            }
            events.append(
                try metadata.envelope(
                    stream: sessionStream,
                    provider: identity.provider,
                    userID: userID,
                    sessionID: sessionID,
                    at: now,
                    data: SigninSucceeded(
                        method: method,
                        subjectHash: subjectHash,
                        authTime: identity.authTime,
                        nonceCheck: identity.nonceCheck,
                        isNewUser: isNewUser,
                        upstreamProvider: EnvelopeText.normalized(
                            identity.upstreamProvider,
                            limit: EnvelopeText.Limit.code
                        )
                    )
                )
            )
            events.append(
                try metadata.envelope(
                    stream: sessionStream,
                    provider: identity.provider,
                    userID: userID,
                    sessionID: sessionID,
                    at: now,
                    data: TokenIssued(
                        accessTokenID: access.id,
                        accessTokenExpiresAt: access.expiresAt,
                        refreshTokenID: refreshID,
                        refreshTokenHash: Hex.encode(refresh.hash),
                        familyID: UUID.version7(at: now),
                        refreshTokenExpiresAt: refreshExpiresAt,
                        kind: kind
                    )
                )
            )
            let response = TokenResponse(
                userID: userID,
                sessionID: sessionID,
                isNewUser: isNewUser,
                accessToken: access.token,
                accessTokenExpiresAt: access.expiresAt,
                refreshToken: refresh.token,
                refreshTokenExpiresAt: refreshExpiresAt
            )
            return (AppendCommand(events: events, expectedVersions: expectations), response)
        } catch {
            throw ServiceError(.internalServerError, "internal_error", "The session could not be prepared.")
        }
    }

    /// Keeps Apple's refresh token, sealed under the data key, for revocation at account deletion.
    private func saveProviderCredential(of identity: VerifiedIdentity, subjectHash: String) async throws(ServiceError) {
        guard let token = identity.providerRefreshToken, let key = self.dependencies.dataKey else { return }
        let associated = Array("\(identity.provider)\u{0}\(subjectHash)".utf8)
        guard let sealed = try? AESGCM.seal(Array(token.utf8), key: key, authenticating: associated).combined else {
            throw ServiceError(.internalServerError, "internal_error", "The provider credential could not be sealed.")
        }
        try await self.dependencies.storeCall {
            try await self.dependencies.credentials.save(
                provider: identity.provider,
                subjectHash: subjectHash,
                sealed: sealed,
                at: .now()
            )
        }
    }
}
