public import AuthlogCore
import AuthlogCrypto
import Foundation

/// Refresh with rotation, logout, and introspection of authlog's own tokens.
///
/// Rotation reads the token and its session stream's version from the projections, then appends
/// `token.refreshed` expecting that version. Of concurrent refreshes with one token exactly one wins; the
/// others lose the expected-version check and read again. Within `refresh_token.reuse_grace_seconds` of the
/// rotation, while its successor is unspent, a spent token presented again gets the same successor pair
/// (`token.refresh_replayed`, TokenService+Grace.swift); otherwise it is reuse: `token.reuse_detected`, which
/// revokes the family and ends the session (RFC 9700 §4.14).
public struct TokenService: Sendable {
    let dependencies: ServiceDependencies
    /// Takes one refresh of a family, once per request, before anything is decided or written (the per-family
    /// rate limit).
    private(set) var familyGate: (any RefreshFamilyGate)?

    /// Creates the service.
    public init(dependencies: ServiceDependencies) { self.dependencies = dependencies }

    /// This service with each refresh request admitted by `gate` once, when its token is first found.
    public func gated(by gate: any RefreshFamilyGate) -> TokenService {
        var service = self
        service.familyGate = gate
        return service
    }

    /// What one attempt at a refresh came to, when it did not refuse.
    enum RefreshStep {
        /// The answer to give.
        case answered(TokenResponse)
        /// Another command changed the session stream first: decide again.
        case collided
        /// A concurrent replay of the same spent token recorded itself first: decide again (each such round
        /// lets one replay through, so these do not count as conflicts up to ``maximumReplayRounds``).
        case collidedWithReplay
        /// The request's DPoP proof was recorded before, by a command that acted on it: refuse.
        case proofReplayed
    }

    /// How many rounds concurrent replays of one spent token may take before they count as conflicts.
    static let maximumReplayRounds = 64

    /// Rotates `refreshToken` and returns a new token pair, or, within the reuse grace window, the pair its
    /// rotation already gave.
    /// - Throws: ``ServiceError`` 401 `invalid_grant` for unknown, expired, revoked or reused tokens (each
    ///   recorded as an event on its session; an unknown one carries a ``TokenUseRefusal`` for the HTTP layer
    ///   to count by address instead), 503 when the database is down.
    public func refresh(_ refreshToken: String, metadata: RequestMetadata) async throws(ServiceError) -> TokenResponse {
        let hash = RefreshTokenSecret.hash(of: refreshToken)
        // A replay is judged by when it was presented, not by when its turn on the session stream came.
        let presentedAt = Timestamp.now()
        var conflicts = 0
        var replayRounds = 0
        var admitted = false
        var proof: DPoPProofClaim?
        var found: RefreshTokenRecord?
        while conflicts < self.dependencies.settings.maximumAttempts {
            let alerts = self.dependencies.settings.alerts.enabled
            let record = try await self.dependencies.storeCall {
                try await self.dependencies.queries.refreshToken(hash: hash, withSessionSignin: alerts)
            }
            found = record ?? found
            // One request is one refresh of its family, however many rounds it takes: one that lost a race on
            // the session stream and decides again takes nothing more (concurrent replays of one token take
            // turns, and a gate taken per round would refuse the last of them).
            if let record, !admitted {
                // The proof first, checked only once the token is found (an unknown token costs no signature
                // check): a thief's refused proofs take nothing from the family's rate limit, which the user's
                // own refreshes need. A family that has ended has no such refreshes: the limit comes first, so
                // a leaked token of it, sent again and again, is recorded at the family's rate, not the address's.
                let family = record.familyID.lowercased
                let ended = record.state == .revoked || !record.session.isUsable
                if ended { try self.familyGate?.admitRefresh(family: family, requestID: metadata.requestID) }
                let offered = DPoPGate(dependencies: self.dependencies).offered(at: presentedAt)
                proof = try await self.requireProof(offered, for: record, metadata: metadata, at: presentedAt)
                if !ended { try self.familyGate?.admitRefresh(family: family, requestID: metadata.requestID) }
                admitted = true
            }
            let step = try await self.attempt(
                refreshToken,
                record: record,
                proof: proof,
                metadata: metadata,
                presentedAt: presentedAt
            )
            switch step {
            case .answered(let response):
                return response
            case .proofReplayed:
                // Only a command acting on a found token carries a proof, so `record` is there.
                guard let record else { throw ServiceError.failure(DPoPProofReplayed()) }
                throw try await self.refuse(DPoPGate.replayed, record: record, metadata: metadata, at: .now())
            case .collided:
                conflicts += 1
            case .collidedWithReplay:
                replayRounds += 1
                if replayRounds > Self.maximumReplayRounds { conflicts += 1 }
            }
        }
        // Still an attempt: recorded on the token's session (with no expected version, so it cannot collide).
        let answer = ServiceError(.conflict, "conflict", "The refresh collided with another one; try again.")
        if let found {
            var metadata = metadata
            metadata.clientID = found.clientID
            try await self.recordRefreshFailure(code: answer.code, record: found, metadata: metadata, at: .now())
        }
        throw answer
    }

    /// One decision on the token as `record` shows it: an answer, a collision to decide again, or a refusal.
    /// Each command that acts on the token records `proof` (the request's DPoP proof, of a bound family) with
    /// its events.
    private func attempt(
        _ refreshToken: String,
        record: RefreshTokenRecord?,
        proof: DPoPProofClaim?,
        metadata: RequestMetadata,
        presentedAt: Timestamp
    ) async throws(ServiceError) -> RefreshStep {
        let now = Timestamp.now()
        guard let record else {
            // A token authlog never issued names nobody: anyone can send one, as often as the address limit
            // lets them, so it is counted by address into an aggregated `request.refused`, not recorded alone.
            var refused = Self.invalidGrant("The refresh token is not known.")
            refused.tokenUseRefusal = TokenUseRefusal(refreshRefusedFor: RefreshFailureReason.unknownToken.rawValue)
            throw refused
        }
        var metadata = metadata
        metadata.clientID = record.clientID
        if record.state == .revoked || !record.session.isUsable {
            try await self.recordRefreshFailure(reason: .revoked, record: record, metadata: metadata, at: now)
            throw Self.invalidGrant("The refresh token was revoked or its session has ended.")
        }
        if record.state == .rotated {
            if let step = try await self.replay(
                refreshToken,
                record: record,
                proof: proof,
                metadata: metadata,
                at: now,
                presentedAt: presentedAt
            ) {
                return step
            }
            return try await self.reuse(record, proof: proof, metadata: metadata, at: now)
        }
        if let limit = self.passedLimit(of: record.session, at: now) {
            let events = try self.sessionExpiredEvents(record: record, limit: limit, metadata: metadata, at: now)
            if let step = try await self.append(events, expecting: record.sessionVersion, recording: proof) {
                return step
            }
            throw Self.invalidGrant("The session has expired (\(limit.rawValue) lifetime); sign in again.")
        }
        if record.expiresAt <= now {
            try await self.recordRefreshFailure(reason: .expired, record: record, metadata: metadata, at: now)
            throw Self.invalidGrant("The refresh token has expired.")
        }
        let review = await SigninReviewer(dependencies: self.dependencies)
            .review(refreshOf: record, metadata: metadata, at: now)
        if let decision = review.decision, !decision.admits {
            throw try await self.refuse(review, record: record, metadata: metadata, at: now)
        }
        do {
            let rotation = try self.rotation(
                of: record,
                presentedToken: refreshToken,
                review: review,
                metadata: metadata,
                at: now
            )
            let unappended = try await self.append(
                rotation.events,
                expecting: record.sessionVersion,
                sealing: rotation.sealedSuccessor,
                recording: proof
            )
            if let step = unappended { return step }
            review.count(into: self.dependencies.metrics)
            return .answered(rotation.response)
        } catch {
            // A rotation that failed on our side is still an attempt: it is recorded where the store lets us.
            try await self.recordRefreshFailure(code: error.code, record: record, metadata: metadata, at: now)
            throw error
        }
    }

    /// Records `token.reuse_detected` for a spent token presented again outside the grace, which revokes the
    /// family and ends the session, and refuses; `.collided` when the session stream moved first.
    private func reuse(
        _ record: RefreshTokenRecord,
        proof: DPoPProofClaim?,
        metadata: RequestMetadata,
        at now: Timestamp
    ) async throws(ServiceError) -> RefreshStep {
        let event = try self.event(
            record: record,
            metadata: metadata,
            at: now,
            outcome: .failure,
            reason: SessionEndReason.reuse.rawValue,
            data: TokenReuseDetected(tokenID: record.tokenID, familyID: record.familyID)
        )
        if let step = try await self.append([event], expecting: record.sessionVersion, recording: proof) {
            return step
        }
        throw Self.invalidGrant("The refresh token was already used; its session is revoked. Sign in again.")
    }

    /// `token.refresh_failed` (`session_expired`) and `session.expired` for a refresh that found its session
    /// past `limit`.
    private func sessionExpiredEvents(
        record: RefreshTokenRecord,
        limit: SessionLimit,
        metadata: RequestMetadata,
        at now: Timestamp
    ) throws(ServiceError) -> [EventEnvelope] {
        [
            try self.event(
                record: record,
                metadata: metadata,
                at: now,
                outcome: .failure,
                reason: RefreshFailureReason.sessionExpired.rawValue,
                data: TokenRefreshFailed(
                    reason: RefreshFailureReason.sessionExpired.rawValue,
                    tokenID: record.tokenID
                )
            ),
            try self.event(
                record: record,
                metadata: metadata,
                at: now,
                outcome: .success,
                reason: limit.rawValue,
                data: SessionExpired(limit: limit)
            ),
        ]
    }

    /// The answer to a refresh refused before its token could be read (oversized or malformed body, no
    /// `refresh_token`): `answer`, carrying the refusal for the HTTP layer to count by address into an
    /// aggregated `request.refused` (`refresh_<reason>`). Such a request names nobody, so it is not recorded
    /// alone: an anonymous client cannot grow the log one event per request.
    public func refuseUnreadable(reason: RequestRefusalReason, answer: ServiceError) -> ServiceError {
        var answer = answer
        answer.tokenUseRefusal = TokenUseRefusal(refreshRefusedFor: reason.rawValue)
        return answer
    }

    /// The answer to a logout whose body cannot be read (`reason`): the body's refusal, counted on the bearer's
    /// session as `logout_<reason>` when its access token checks out; else the token's own refusal (401, counted
    /// as every refused access token is), since a logout without a valid token ends nothing whatever it says.
    public func refuseUnreadableLogout(
        bearer: String,
        reason: RequestRefusalReason,
        answer: ServiceError
    ) async -> ServiceError {
        do {
            let (claims, _) = try await self.authenticate(bearer: bearer)
            var answer = answer
            answer.tokenUseRefusal = TokenUseRefusal(Self.logoutPrefix + reason.rawValue, accessToken: claims)
            return answer
        } catch {
            return error
        }
    }

    /// What the kinds of logouts refused for their body begin with.
    public static let logoutPrefix = "logout_"

    /// Ends the session of `bearer` (`this`) or every session of its user (`all`).
    /// - Throws: ``ServiceError`` 401 `invalid_token` when the access token is not valid or its session has
    ///   ended, 503 when the database is down.
    public func logout(bearer: String, scope: LogoutScope, metadata: RequestMetadata) async throws(ServiceError) {
        let (claims, session) = try await self.authenticate(bearer: bearer)
        var metadata = metadata
        metadata.clientID = session.clientID
        let event = try self.sessionEvent(
            userID: claims.userID,
            sessionID: claims.sessionID,
            provider: session.provider,
            metadata: metadata,
            at: .now(),
            outcome: .success,
            reason: nil,
            data: SessionLoggedOut(scope: scope)
        )
        try await self.dependencies.storeCall { try await self.dependencies.store.append(event) }
    }

    /// The claims of a valid access token whose session is still active.
    /// - Throws: ``ServiceError`` 401 `invalid_token`, 503 when the database is down.
    public func authenticate(bearer: String) async throws(ServiceError) -> (AccessTokenClaims, SessionRecord) {
        let claims = try self.verifiedClaims(of: bearer)
        let proof = try self.requireProof(forAccessToken: bearer, claims: claims)
        let session = try await self.activeSession(of: claims)
        try await self.recordOnce(proof, accessToken: claims)
        return (claims, session)
    }

    /// The claims of an access token whose signature, issuer, audience and expiry check out.
    /// - Throws: ``ServiceError`` 401 `invalid_token`, with its refusal (`access_token_<reason>`, of no
    ///   session: nothing in a token that failed is trusted) for the HTTP layer to count by address.
    private func verifiedClaims(of bearer: String) throws(ServiceError) -> AccessTokenClaims {
        do {
            return try self.dependencies.accessTokens.verify(bearer)
        } catch {
            var refused = ServiceError.invalidToken("The access token is not valid (\(error.reason)).")
            refused.tokenUseRefusal = TokenUseRefusal(reason: "access_token_" + error.reason, session: nil)
            throw refused
        }
    }

    /// The session of `claims`, when it is still active.
    /// - Throws: ``ServiceError`` 401 `invalid_token`, with its refusal (`session_ended`, on the token's
    ///   session: the claims are the service's own) for the HTTP layer to record; 503 when the database is down.
    private func activeSession(of claims: AccessTokenClaims) async throws(ServiceError) -> SessionRecord {
        let session = try await self.dependencies.storeCall {
            try await self.dependencies.queries.session(claims.sessionID)
        }
        guard let session, session.isUsable, session.userID == claims.userID,
            self.passedLimit(of: session, at: .now()) == nil
        else {
            var refused = ServiceError.invalidToken("The session of this access token has ended.")
            refused.tokenUseRefusal = TokenUseRefusal(TokenUseRefusal.sessionEnded, accessToken: claims)
            throw refused
        }
        return session
    }

    /// The claims and session of an active access token, without a DPoP proof: for introspection and
    /// revocation, whose callers authenticate as clients.
    func activeAccessToken(_ token: String) async throws(ServiceError) -> (AccessTokenClaims, SessionRecord) {
        let claims = try self.verifiedClaims(of: token)
        return (claims, try await self.activeSession(of: claims))
    }

    /// The claims and session of `token` when it is an active access token of ours; nil when it is not (not a
    /// valid JWT of ours, or its session has ended).
    /// - Throws: ``ServiceError`` 503 when the database is down: a token whose session could not be read is not
    ///   "unknown", and revocation must not answer that it revoked it (nor introspection that it is inactive).
    func activeAccessTokenIfAny(_ token: String) async throws(ServiceError) -> (AccessTokenClaims, SessionRecord)? {
        do {
            return try await self.activeAccessToken(token)
        } catch  where error.status == .unauthorized {
            return nil
        }
    }

    /// RFC 7662 introspection: the claims of an active access or refresh token, else `{"active": false}`.
    /// - Throws: ``ServiceError`` 503 when the database is down.
    public func introspect(_ token: String) async throws(ServiceError) -> JSONValue {
        if let (claims, _) = try await self.activeAccessTokenIfAny(token) {
            var members: [(name: String, value: JSONValue)] = [
                ("active", .bool(true)), ("token_type", .string("access_token")),
                ("sub", .string(claims.userID.lowercased)), ("sid", .string(claims.sessionID.lowercased)),
                ("jti", .string(claims.tokenID.lowercased)), ("iss", .string(self.dependencies.accessTokens.issuer)),
                ("aud", .string(self.dependencies.accessTokens.audience)), ("iat", .number(String(claims.issuedAt))),
                ("exp", .number(String(claims.expiresAt))),
            ]
            if let clientID = claims.clientID { members.append(("client_id", .string(clientID))) }
            if let jkt = claims.dpopJKT { members.append(("cnf", .object([("jkt", .string(jkt))]))) }
            return .object(members)
        }
        let record = try await self.dependencies.storeCall {
            try await self.dependencies.queries.refreshToken(hash: RefreshTokenSecret.hash(of: token))
        }
        guard let record, record.state == .active, record.session.isUsable, record.expiresAt > .now(),
            self.passedLimit(of: record.session, at: .now()) == nil
        else {
            return .object([("active", .bool(false))])
        }
        var members: [(name: String, value: JSONValue)] = [
            ("active", .bool(true)), ("token_type", .string("refresh_token")),
            ("sub", .string(record.userID.lowercased)),
            ("sid", .string(record.sessionID.lowercased)),
            ("exp", .number(String(record.expiresAt.microsecondsSinceEpoch / 1_000_000))),
        ]
        if let clientID = record.clientID { members.append(("client_id", .string(clientID))) }
        if let jkt = record.dpopJKT { members.append(("cnf", .object([("jkt", .string(jkt))]))) }
        return .object(members)
    }

    static func invalidGrant(_ description: String) -> ServiceError {
        ServiceError(.unauthorized, "invalid_grant", description)
    }

    /// The rotation of `record`'s token: `token.refreshed` and, when `review` found the refresh unusual, its
    /// `signin.flagged`; the answer (with `signin_alert`); and the answer sealed for the grace window, alert
    /// included.
    private func rotation(
        of record: RefreshTokenRecord,
        presentedToken: String,
        review: SigninReview,
        metadata: RequestMetadata,
        at now: Timestamp
    ) throws(ServiceError)
        -> (events: [EventEnvelope], response: TokenResponse, sealedSuccessor: SealedSuccessor?)
    {
        do {
            let access = try self.dependencies.makeAccessToken(
                userID: record.userID,
                sessionID: record.sessionID,
                clientID: record.clientID,
                dpopJKT: record.dpopJKT,
                now: now
            )
            let refresh = try RefreshTokenSecret.make()
            let expiresAt = self.successorExpiry(of: record, at: now)
            let payload = TokenRefreshed(
                oldTokenID: record.tokenID,
                newTokenID: UUID.version7(at: now),
                newTokenHash: Hex.encode(refresh.hash),
                familyID: record.familyID,
                refreshTokenExpiresAt: expiresAt,
                accessTokenID: access.id,
                accessTokenExpiresAt: access.expiresAt,
                kind: record.kind,
                dpopJKT: record.dpopJKT
            )
            let event = try self.event(
                record: record,
                metadata: metadata,
                at: now,
                outcome: .success,
                reason: nil,
                data: payload
            )
            var response = TokenResponse(
                userID: record.userID,
                sessionID: record.sessionID,
                isNewUser: false,
                accessToken: access.token,
                accessTokenExpiresAt: access.expiresAt,
                refreshToken: refresh.token,
                refreshTokenExpiresAt: expiresAt,
                dpopBound: record.dpopJKT != nil
            )
            let flagged = try self.flaggedEvents(review, judged: event, record: record, metadata: metadata)
            if let alert = flagged.first { response.signinAlert = (alert.eventID, review.judgements.map(\.kind)) }
            let sealed = self.sealedSuccessor(
                of: response,
                rotation: (event.eventID, payload),
                presentedToken: presentedToken,
                record: record
            )
            return ([event] + flagged, response, sealed)
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(.internalServerError, "internal_error", "The new tokens could not be made.")
        }
    }

    /// When the token that replaces `record`'s at `now` expires: the family's absolute lifetime does not grow
    /// with rotation.
    private func successorExpiry(of record: RefreshTokenRecord, at now: Timestamp) -> Timestamp {
        let lifetime =
            record.kind == .rememberMe
            ? self.dependencies.settings.rememberMeLifetime : self.dependencies.settings.sessionLifetime
        return min(record.expiresAt, now.adding(seconds: lifetime))
    }

    /// The lifetime `session` has passed at `now`, if any.
    func passedLimit(of session: SessionRecord, at now: Timestamp) -> SessionLimit? {
        self.dependencies.settings.lifetimes.passedLimit(
            kind: session.kind,
            startedAt: session.startedAt,
            lastSeenAt: session.lastSeenAt,
            now: now
        )
    }
}
