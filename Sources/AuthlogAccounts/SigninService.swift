public import AuthlogCore
import AuthlogCrypto
public import AuthlogProviders
import Foundation

/// How a verified identity's sign-in went: its session started, or the identity is locked.
enum SessionStart {
    /// The session started; the answer to give.
    case started(TokenResponse)
    /// The identity (this subject hash) is locked: the sign-in is refused.
    case locked(subjectHash: String)
    /// The sign-in is unusual for its user and the policy refuses it.
    case unusual(SigninReview, userID: UUID)
}

/// Sign-in: verifies the provider proof, consumes the nonce once, registers the user on the identity's
/// first sign-in, starts a session and issues an access token and a refresh token — all events of one
/// command, so nothing is half-written. Every failure is a `signin.failed` event with its reason.
public struct SigninService: Sendable {
    let dependencies: ServiceDependencies
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
    ///   409 `account_exists` when another user holds the identity's verified email, 502 when the provider
    ///   cannot be reached, 503 when the database is down. A `signin.failed` event is recorded for each refusal.
    public func signIn(
        provider providerName: String,
        proof: SigninProof,
        rememberMe: Bool,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> TokenResponse {
        let dpopProof = try await self.offeredDPoPProof(
            provider: providerName,
            method: proof.method,
            metadata: metadata
        )
        let identity: VerifiedIdentity
        switch await self.verifiedIdentity(provider: providerName, proof: proof) {
        case .success(let verified): identity = verified
        case .failure(let refusal):
            throw await self.record(refusal, method: proof.method, action: nil, metadata: metadata)
        }
        var metadata = metadata
        metadata.clientID = identity.clientID ?? metadata.clientID
        try await self.bind(dpopProof, provider: providerName, method: proof.method, metadata: &metadata)
        let start: SessionStart
        do {
            start = try await self.startSession(
                for: identity,
                method: proof.method,
                rememberMe: rememberMe,
                metadata: metadata
            )
        } catch {
            // A verified proof whose session could not be started is still an attempt: it is recorded.
            let refusal = ProofRefusal(provider: providerName, failure: error)
            throw await self.record(refusal, method: proof.method, action: nil, metadata: metadata)
        }
        switch start {
        case .started(let response):
            self.dependencies.metrics.recordSignin(provider: providerName, outcome: Outcome.success.rawValue)
            return response
        case .locked(let subjectHash):
            let refusal = ProofRefusal.locked(provider: providerName, subjectHash: subjectHash)
            throw await self.record(refusal, method: proof.method, action: nil, metadata: metadata)
        case .unusual(let review, let userID):
            throw await self.recordRefused(
                review,
                provider: providerName,
                method: proof.method,
                userID: userID,
                metadata: metadata
            )
        }
    }

    /// Verifies `proof` at provider `providerName` and consumes its nonce once; a refusal carries the reason
    /// to record and the answer to give.
    func verifiedIdentity(
        provider providerName: String,
        proof: SigninProof
    ) async -> Result<VerifiedIdentity, ProofRefusal> {
        guard let provider = self.providers[providerName] else {
            return .failure(.unknownProvider())
        }
        do {
            let identity = try await provider.verify(proof)
            do {
                try await self.consumeNonce(of: identity)
            } catch let error as ProviderError {
                // The provider vouched for the subject; a missing, reused or expired nonce counts against it.
                throw error.vouched(for: identity.subject)
            }
            return .success(identity)
        } catch let error as ProviderError {
            return .failure(ProofRefusal(provider: providerName, refused: error))
        } catch {
            return .failure(ProofRefusal(provider: providerName, failure: ServiceError.failure(error)))
        }
    }

    /// The enabled provider called `name`.
    func provider(named name: String) -> (any IdentityProvider)? { self.providers[name] }

    /// Records a sign-in refused before its proof could be read (oversized or malformed body) and returns
    /// the answer to give.
    public func refuseUnreadable(
        provider providerName: String,
        reason: RequestRefusalReason,
        metadata: RequestMetadata,
        answer: ServiceError
    ) async -> ServiceError {
        let name = self.providers[providerName] == nil ? "unknown" : providerName
        let refusal = ProofRefusal(provider: name, unreadable: reason, answer: answer)
        return await self.record(refusal, method: nil, action: nil, metadata: metadata)
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

    /// Records a refused proof as `signin.failed` (with the signed-in user's `action` it was for, if any) and
    /// returns the answer to give; when even that cannot be recorded, the store's answer.
    func record(
        _ refusal: ProofRefusal,
        method: String?,
        action: AccountAction?,
        metadata: RequestMetadata,
        userID: UUID? = nil
    ) async -> ServiceError {
        self.dependencies.metrics.recordSignin(provider: refusal.provider, outcome: Outcome.failure.rawValue)
        let subjectHash = await self.subjectHash(of: refusal)
        do {
            let event = try metadata.envelope(
                stream: StreamName(category: "signin", id: refusal.provider),
                outcome: .failure,
                reason: refusal.reason,
                provider: refusal.provider,
                userID: userID,
                at: .now(),
                data: SigninFailed(reason: refusal.reason, method: method, action: action, subjectHash: subjectHash)
            )
            try await self.dependencies.store.append(event)
        } catch {
            return ServiceError.failure(error)
        }
        if refusal.countsTowardLockout, let subjectHash {
            await IdentityLocks(dependencies: self.dependencies)
                .afterCountedFailure(provider: refusal.provider, subjectHash: subjectHash, metadata: metadata)
        }
        return refusal.answer
    }

    /// The keyed subject hash a refusal is recorded with: the one it knows (a locked identity), or that of
    /// the subject the provider vouched for (the hash its sign-in would use, linked or not); `nil` for a proof
    /// that did not verify as the provider's, and when the store cannot say (the refusal is still recorded).
    private func subjectHash(of refusal: ProofRefusal) async -> String? {
        if let known = refusal.subjectHash { return known }
        guard let subject = refusal.vouchedSubject else { return nil }
        let registry = IdentityRegistry(dependencies: self.dependencies)
        return try? await registry.standing(provider: refusal.provider, subject: subject).subjectHash
    }

    /// Starts the session of a verified identity, or finds the identity locked. The command expects the
    /// identity's lock stream at the version read, so a lock recorded meanwhile by another process sends the
    /// sign-in round again, where it finds the lock.
    private func startSession(
        for identity: VerifiedIdentity,
        method: String,
        rememberMe: Bool,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> SessionStart {
        let registry = IdentityRegistry(dependencies: self.dependencies)
        let locks = IdentityLocks(dependencies: self.dependencies)
        var lastConflict = false
        let alerts = self.dependencies.settings.alerts
        for attempt in 0..<self.dependencies.settings.maximumAttempts {
            // With sign-in alerts the identity's user comes with their history, in the same read.
            let (standing, history) =
                alerts.enabled
                ? try await registry.standingWithHistory(of: identity, rules: alerts.rules)
                : (try await registry.standing(of: identity), nil)
            let subjectHash = standing.subjectHash
            var lockEvents: [EventEnvelope] = []
            var lockExpectation: (stream: StreamName, version: Int32)?
            if locks.policy.isEnabled {
                let now = Timestamp.now()
                let lockout = try await locks.state(provider: identity.provider, subjectHash: subjectHash, at: now)
                if lockout.isLocked(at: now) { return .locked(subjectHash: subjectHash) }
                lockEvents = try locks.expiryEvents(
                    of: lockout,
                    provider: identity.provider,
                    subjectHash: subjectHash,
                    metadata: metadata,
                    at: now
                )
                lockExpectation = (
                    IdentityLockout.streamName(provider: identity.provider, subjectHash: subjectHash),
                    lockout.streamVersion
                )
            }
            // A conflict on the registration stream with the identity still free means the name-based id is
            // taken (an account registered under it was deleted): register under a fresh id instead.
            guard
                let user = try await self.user(
                    of: identity,
                    standing: standing,
                    registry: registry,
                    freshID: lastConflict && attempt > 1
                )
            else { continue }
            let sealedProfile = try await self.sealedProfile(of: identity, user: user)
            let review = try await SigninReviewer(dependencies: self.dependencies)
                .review(
                    signinOf: user,
                    history: standing.userID == user.id ? history : nil,
                    authTime: identity.authTime,
                    metadata: metadata,
                    at: .now()
                )
            if let decision = review.decision, !decision.admits { return .unusual(review, userID: user.id) }
            var plan = try self.plan(
                identity: identity,
                subjectHash: subjectHash,
                method: method,
                rememberMe: rememberMe,
                user: user,
                sealedProfile: sealedProfile,
                sighting: review.sighting,
                metadata: metadata
            )
            try self.flag(&plan, review: review, userID: user.id, provider: identity.provider, metadata: metadata)
            plan.command.events.insert(contentsOf: lockEvents, at: 0)
            if let lockExpectation {
                plan.command.expectedVersions[lockExpectation.stream] = .exactly(lockExpectation.version)
            }
            do {
                try await self.dependencies.store.append(plan.command)
            } catch is WrongExpectedVersion {
                lastConflict = true
                continue
            } catch {
                throw ServiceError.failure(error)
            }
            // Only once the identity is the user's: what it proved is kept for the same-email policy and for
            // revoking the grant at deletion. The sign-in has committed, so a failure here does not undo it;
            // the next sign-in of the identity keeps them again.
            try? await registry.remember(identity, subjectHash: subjectHash, userID: user.id)
            review.count(into: self.dependencies.metrics)
            return .started(plan.response)
        }
        throw ServiceError(.conflict, "conflict", "The sign-in collided with another one; try again.")
    }

    /// The user a sign-in with `identity` is for: the linked one, the one holding its verified email when
    /// the policy links by email, or a new one (under a fresh id when `freshID`); `nil` when a concurrent
    /// sign-in of the same identity registered it since `standing` was read (decide again: it is linked now).
    /// - Throws: ``ServiceError`` 409 `account_exists` when another user holds the email and it is not linked.
    private func user(
        of identity: VerifiedIdentity,
        standing: IdentityStanding,
        registry: IdentityRegistry,
        freshID: Bool
    ) async throws(ServiceError) -> SigninUser? {
        switch standing {
        case .linked(let userID, _):
            return (userID, false, nil)
        case .unregistered(let subjectHash):
            guard let owners = try await registry.emailOwners(ofUnregistered: identity) else { return nil }
            let ownerIDs = Set(owners.map(\.userID))
            if let owner = ownerIDs.first {
                guard self.dependencies.settings.linkByVerifiedEmail, identity.emailIsAuthoritative,
                    ownerIDs.count == 1
                else { throw Self.accountExists(providers: owners.map(\.provider)) }
                return (owner, false, "verified_email")
            }
            let userID =
                freshID
                ? UUID.version7()
                : IdentityHasher.registrationUserID(provider: identity.provider, subjectHash: subjectHash)
            return (userID, true, nil)
        }
    }

    /// The new user's profile sealed in the vault, when the sign-in registers a user and a vault is configured.
    private func sealedProfile(of identity: VerifiedIdentity, user: SigninUser) async throws(ServiceError) -> String? {
        guard user.isNew, let vault = self.dependencies.vault else { return nil }
        return try await self.dependencies.storeCall {
            try await vault.sealProfile(
                displayName: identity.displayName,
                email: identity.verifiedEmail,
                for: user.id
            )
        }
    }

    /// 409 `account_exists`: another user holds the verified email; the answer names the providers to sign
    /// in with (and link this one from there).
    static func accountExists(providers: [String]) -> ServiceError {
        let names = Array(Set(providers)).sorted()
        var answer = ServiceError(
            .conflict,
            "account_exists",
            "An account with this email exists; sign in with \(names.joined(separator: " or ")) and link this provider there."
        )
        answer.extraMembers = [("providers", .array(names.map { .string($0) }))]
        return answer
    }
}
