public import Foundation

extension AuthlogClient {
    /// `POST /v1/logout`: ends this session (or all of the user's) at authlog, then clears the tokens here and
    /// sends ``SignOutReason/loggedOut``. The tokens are cleared even when authlog could not be told.
    /// - Throws: ``AuthlogClientError`` `.transport` or authlog's code, after clearing the tokens.
    public func logout(_ scope: LogoutScope = .thisSession) async throws {
        guard try await self.keeper.current() != nil else { return }
        do {
            _ = try await self.authorized(
                "POST",
                "/v1/logout",
                body: ["scope": .string(scope.rawValue)],
                sessions: scope == .thisSession ? nil : .anyOfUser
            )
        } catch let error as AuthlogClientError where error.isSignedOut {
            // authlog had already ended the session; the keeper has cleared it.
        } catch {
            await self.keeper.end(.loggedOut)
            throw error
        }
        await self.keeper.end(.loggedOut)
    }

    /// `POST /v1/me/reauthenticate`: proves one of the user's identities again, for linking, unlinking and
    /// deletion, which need a sign-in within the last 5 minutes (server default).
    /// - Returns: the session's new authentication time.
    /// - Throws: ``AuthlogClientError``: the refused proof's reason, `identity_mismatch` (another user's
    ///   identity), `.signedOut`.
    @discardableResult
    public func reauthenticate(with proof: SigninProof) async throws -> Date {
        var body = proof.members
        body["provider"] = .string(proof.provider)
        let data = try await self.authorized("POST", "/v1/me/reauthenticate", body: body)
        guard let at = WireTime.parse(try APIConnection.decode(ReauthenticationAnswer.self, data).authenticatedAt)
        else { throw AuthlogClientError(.invalidResponse, detail: "The authentication time cannot be read.") }
        return at
    }

    /// `POST /v1/me/identities/{provider}`: links the identity `proof` shows to the signed-in user.
    /// - Throws: ``AuthlogClientError``: `reauthentication_required`, `identity_in_use`, the proof's reason.
    public func link(_ proof: SigninProof) async throws {
        _ = try await self.authorized("POST", "/v1/me/identities/\(Self.segment(proof.provider))", body: proof.members)
    }

    /// `DELETE /v1/me/identities/{provider}`: unlinks the user's identity of `provider`.
    /// - Throws: ``AuthlogClientError``: `reauthentication_required`, `identity_not_linked`, `last_identity`.
    public func unlink(provider: String) async throws {
        _ = try await self.authorized("DELETE", "/v1/me/identities/\(Self.segment(provider))")
    }

    /// `DELETE /v1/me`: deletes the account (App Store Review Guideline 5.1.1(v)), revoking the user's grants at
    /// the providers (Apple's `/auth/revoke`), then clears the tokens and sends ``SignOutReason/accountDeleted``.
    /// - Throws: ``AuthlogClientError``: `reauthentication_required` (call ``reauthenticate(with:)`` first).
    @discardableResult
    public func deleteAccount() async throws -> AccountDeletion {
        let userID = try await self.keeper.current()?.userID
        let data = try await self.authorized("DELETE", "/v1/me", sessions: .anyOfUser)
        let answer = try APIConnection.decode(DeletionAnswer.self, data)
        await self.keeper.end(.accountDeleted)
        // authlog answers for no event of a deleted account: its receipts can no longer be asked for.
        if let userID { await self.monitor?.forget(userID: userID) }
        return AccountDeletion(providerRevocations: answer.providerRevocations)
    }

    /// `POST /v1/me/credential-state`: reports what `getCredentialState` said at launch. `revoked` and
    /// `notFound` end the user's sessions signed in with `provider` at authlog; when this session is one of
    /// them (or its provider is unknown), the tokens are cleared here too and
    /// ``SignOutReason/credentialRevoked`` is sent.
    /// - Throws: ``AuthlogClientError``: `identity_not_linked`, `.signedOut`.
    public func reportCredentialState(_ state: CredentialState, provider: String = "apple") async throws {
        _ = try await self.authorized(
            "POST",
            "/v1/me/credential-state",
            body: ["provider": .string(provider), "state": .string(state.rawValue)],
            sessions: .anyOfUser
        )
        guard state != .authorized else { return }
        let sessionProvider = try await self.keeper.current()?.provider
        if sessionProvider == nil || sessionProvider == provider {
            await self.keeper.end(.credentialRevoked)
        }
    }
}

/// `{"authenticated_at"}`.
private struct ReauthenticationAnswer: Decodable {
    let authenticatedAt: String

    enum CodingKeys: String, CodingKey {
        case authenticatedAt = "authenticated_at"
    }
}

/// `{"status", "provider_revocations"}`.
private struct DeletionAnswer: Decodable {
    let providerRevocations: [String: String]

    enum CodingKeys: String, CodingKey {
        case providerRevocations = "provider_revocations"
    }
}
