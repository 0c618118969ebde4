import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import Foundation

/// The user a sign-in is for: its id, whether the sign-in registers it, and the policy that links the
/// identity to an existing user (`verified_email`), if any.
typealias SigninUser = (id: UUID, isNew: Bool, linkPolicy: String?)

/// The tokens a sign-in issues.
private struct IssuedTokens {
    let access: (token: String, id: UUID, expiresAt: Timestamp)
    let refresh: RefreshTokenSecret
    let refreshID: UUID
    let refreshExpiresAt: Timestamp
    let kind: RefreshTokenKind
}

extension SigninService {
    /// The command that records one sign-in (registration or link, the sign-in, the tokens) and the answer
    /// to give once it is appended.
    /// - Throws: ``ServiceError`` 500 when the tokens or events cannot be made.
    func plan(
        identity: VerifiedIdentity,
        subjectHash: String,
        method: String,
        rememberMe: Bool,
        user: SigninUser,
        sealedProfile: String?,
        sighting: SigninSighting?,
        metadata: RequestMetadata
    ) throws(ServiceError) -> (command: AppendCommand, response: TokenResponse) {
        let now = Timestamp.now()
        let sessionID = UUID.version7(at: now)
        let sessionStream = StreamName.session(sessionID)
        do {
            let tokens = try self.issueTokens(
                userID: user.id,
                sessionID: sessionID,
                rememberMe: rememberMe,
                metadata: metadata,
                at: now
            )
            var expectations: [StreamName: ExpectedVersion] = [sessionStream: .noStream]
            var events = try self.userEvents(
                identity: identity,
                subjectHash: subjectHash,
                user: user,
                sealedProfile: sealedProfile,
                metadata: metadata,
                at: now
            )
            if user.isNew { expectations[StreamName.user(user.id)] = .noStream }
            events += try self.sessionEvents(
                identity: identity,
                subjectHash: subjectHash,
                method: method,
                rememberMe: rememberMe,
                user: user,
                sessionID: sessionID,
                tokens: tokens,
                sighting: sighting,
                metadata: metadata,
                at: now
            )
            let response = TokenResponse(
                userID: user.id,
                sessionID: sessionID,
                isNewUser: user.isNew,
                accessToken: tokens.access.token,
                accessTokenExpiresAt: tokens.access.expiresAt,
                refreshToken: tokens.refresh.token,
                refreshTokenExpiresAt: tokens.refreshExpiresAt,
                dpopBound: metadata.dpopKey != nil
            )
            return (AppendCommand(events: events, expectedVersions: expectations), response)
        } catch {
            throw ServiceError(.internalServerError, "internal_error", "The session could not be prepared.")
        }
    }

    /// The access token and the refresh token of a new session.
    private func issueTokens(
        userID: UUID,
        sessionID: UUID,
        rememberMe: Bool,
        metadata: RequestMetadata,
        at now: Timestamp
    ) throws -> IssuedTokens {
        let lifetime =
            rememberMe ? self.dependencies.settings.rememberMeLifetime : self.dependencies.settings.sessionLifetime
        let access = try self.dependencies.makeAccessToken(
            userID: userID,
            sessionID: sessionID,
            clientID: metadata.clientID,
            dpopJKT: metadata.dpopKey,
            now: now
        )
        let refresh = try RefreshTokenSecret.make()
        return IssuedTokens(
            access: access,
            refresh: refresh,
            refreshID: UUID.version7(at: now),
            refreshExpiresAt: now.adding(seconds: lifetime),
            kind: rememberMe ? .rememberMe : .session
        )
    }

    /// `user.registered` for a new user, `identity.linked` for an identity linked by policy, else nothing.
    private func userEvents(
        identity: VerifiedIdentity,
        subjectHash: String,
        user: SigninUser,
        sealedProfile: String?,
        metadata: RequestMetadata,
        at now: Timestamp
    ) throws -> [EventEnvelope] {
        let userStream = StreamName.user(user.id)
        if user.isNew {
            return [
                try self.dependencies.event(
                    metadata,
                    stream: userStream,
                    provider: identity.provider,
                    userID: user.id,
                    at: now,
                    data: UserRegistered(
                        provider: identity.provider,
                        subjectHash: subjectHash,
                        sealedProfile: sealedProfile
                    )
                )
            ]
        }
        guard let policy = user.linkPolicy else { return [] }
        return [
            try self.dependencies.event(
                metadata,
                stream: userStream,
                provider: identity.provider,
                userID: user.id,
                at: now,
                data: IdentityLinked(provider: identity.provider, subjectHash: subjectHash, policy: policy)
            )
        ]
    }

    /// `signin.succeeded` and `token.issued` on the new session's stream.
    private func sessionEvents(
        identity: VerifiedIdentity,
        subjectHash: String,
        method: String,
        rememberMe: Bool,
        user: SigninUser,
        sessionID: UUID,
        tokens: IssuedTokens,
        sighting: SigninSighting?,
        metadata: RequestMetadata,
        at now: Timestamp
    ) throws -> [EventEnvelope] {
        let sessionStream = StreamName.session(sessionID)
        let succeeded = try self.dependencies.event(
            metadata,
            stream: sessionStream,
            provider: identity.provider,
            userID: user.id,
            sessionID: sessionID,
            at: now,
            data: SigninSucceeded(
                method: method,
                subjectHash: subjectHash,
                authTime: identity.authTime,
                nonceCheck: identity.nonceCheck.rawValue,
                isNewUser: user.isNew,
                upstreamProvider: EnvelopeText.normalized(identity.upstreamProvider, limit: EnvelopeText.Limit.code),
                rememberMe: rememberMe,
                sighting: sighting
            )
        )
        let issued = try self.dependencies.event(
            metadata,
            stream: sessionStream,
            provider: identity.provider,
            userID: user.id,
            sessionID: sessionID,
            at: now,
            data: TokenIssued(
                accessTokenID: tokens.access.id,
                accessTokenExpiresAt: tokens.access.expiresAt,
                refreshTokenID: tokens.refreshID,
                refreshTokenHash: Hex.encode(tokens.refresh.hash),
                familyID: UUID.version7(at: now),
                refreshTokenExpiresAt: tokens.refreshExpiresAt,
                kind: tokens.kind,
                dpopJKT: metadata.dpopKey
            )
        )
        return [succeeded, issued]
    }
}
