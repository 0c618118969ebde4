import Foundation

extension AuthlogClient {
    /// `POST /v1/nonces`: a single-use nonce from authlog, as an alternative to ``AppleNonce/make()``.
    /// - Throws: ``AuthlogClientError`` with authlog's code, or `.transport`.
    public func requestNonce() async throws -> IssuedNonce {
        let (data, response) = try await self.connection.perform(try self.connection.request("POST", "/v1/nonces"))
        try APIConnection.check(data, response)
        let answer = try APIConnection.decode(NonceAnswer.self, data)
        guard let expiresAt = WireTime.parse(answer.expiresAt) else {
            throw AuthlogClientError(.invalidResponse, detail: "The nonce's expiry cannot be read.")
        }
        return IssuedNonce(rawValue: answer.nonce, expiresAt: expiresAt)
    }

    /// `POST /v1/signin/{provider}`: signs in with `proof`, stores the new session's tokens (replacing any
    /// others) and sends ``SessionEvent/signedIn(userID:sessionID:)``.
    ///
    /// The request carries the install's device id as `Authlog-Device-Id` (``TokenStore/loadOrCreateDeviceID()``),
    /// or goes without it when the token store cannot give it. With DPoP on (the default), it carries a proof of the
    /// install's DPoP key too, and authlog binds the new session to the key (``AuthTokens/tokenType`` `DPoP`); a
    /// token store that keeps no key signs in without one, to Bearer tokens. When authlog found the sign-in unusual
    /// (`signin_alert`), the alert is in ``SigninResult/signinAlert`` and ``SessionEvent/unusualSignin(_:)``
    /// follows `signedIn`; a malformed `signin_alert` is ignored.
    /// - Parameters:
    ///   - proof: what the provider's SDK gave the app.
    ///   - rememberMe: `false` makes a session of 12 hours instead of 30 days (server defaults).
    ///   - clientID: the app's client id, recorded with the sign-in.
    /// - Returns: the tokens, whether the user is new, the events recorded, and the sign-in alert, if any.
    /// - Throws: ``AuthlogClientError`` with authlog's code (`nonce_mismatch`, `account_exists` with
    ///   ``AuthlogClientError/providers``, `invalid_dpop_proof` with ``AuthlogClientError/dpopReason``,
    ///   `use_dpop_nonce` when authlog asked for a nonce twice, …), `.transport`, `.tokenStore` (also when the store
    ///   cannot give the DPoP key), or `.dpopKeyUnavailable`.
    @discardableResult
    public func signIn(
        with proof: SigninProof,
        rememberMe: Bool = true,
        clientID: String? = nil
    ) async throws
        -> SigninResult
    {
        var body = proof.members
        body["remember_me"] = .bool(rememberMe)
        if let clientID { body["client_id"] = .string(clientID) }
        let request = await self.connection.identified(
            try self.connection.request("POST", "/v1/signin/\(Self.segment(proof.provider))", body: body)
        )
        let started = Date()
        let (data, response) = try await self.connection.performProved(request, needsKey: true)
        try APIConnection.check(data, response)
        let answer = try APIConnection.decode(TokenAnswer.self, data)
        let tokens = try answer.tokens(provider: proof.provider)
        try await self.keeper.replace(with: tokens)
        self.events.yield(.signedIn(userID: tokens.userID, sessionID: tokens.sessionID))
        let alert = answer.signinAlert
        if let alert { self.events.yield(.unusualSignin(alert)) }
        await self.noteEvents(in: response, body: answer.eventIDs ?? [], for: tokens.identity, at: started)
        return SigninResult(
            tokens: tokens,
            isNewUser: answer.isNewUser ?? false,
            eventIDs: answer.eventIDs ?? [],
            signinAlert: alert
        )
    }

    /// `text` as one path segment.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? text
    }
}

/// `{"nonce", "expires_at"}`.
private struct NonceAnswer: Decodable {
    let nonce: String
    let expiresAt: String

    enum CodingKeys: String, CodingKey {
        case nonce
        case expiresAt = "expires_at"
    }
}
