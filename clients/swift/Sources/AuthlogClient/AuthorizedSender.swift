import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a request with the session's access token, refreshing it before expiry or on a 401 (once for all
/// concurrent callers, through the keeper), and sends the request again once after a refresh. Tokens bound to the
/// install's DPoP key go with a proof of it (``APIConnection/performProved(_:accessToken:needsKey:limit:)``). What
/// ``AuthlogClient/send(_:)`` and the monitor's receipt requests share.
struct AuthorizedSender: Sendable {
    let keeper: TokenKeeper
    let connection: APIConnection
    /// An access token expiring within this many seconds is refreshed first.
    let leeway: TimeInterval

    /// The answer to `request` (its body read no further than `limit` bytes, when one is given), and the tokens
    /// it was sent with.
    /// - Throws: ``AuthlogClientError``: `.signedOut` when there is no session or authlog ended it, `.transport`,
    ///   `.answerTooLarge`; for tokens bound to the DPoP key, `.tokenStore` or `.dpopKeyUnavailable` when the key
    ///   cannot be had.
    func send(_ request: URLRequest, limit: Int? = nil) async throws -> (Data, HTTPURLResponse, AuthTokens) {
        let tokens: AuthTokens
        if let usable = self.keeper.snapshot.usable(leeway: self.leeway) {
            tokens = usable
        } else {
            tokens = try await self.keeper.validTokens(leeway: self.leeway)
        }
        let (data, response) = try await self.send(request, with: tokens, limit: limit)
        guard Self.needsRefresh(data, response) else { return (data, response, tokens) }
        let fresh = try await self.keeper.refresh(replacing: tokens.accessToken)
        let (again, answer) = try await self.send(request, with: fresh, limit: limit)
        return (again, answer, fresh)
    }

    /// `request` sent with `tokens`' access token: as `Authorization: DPoP` with a proof carrying its hash (`ath`)
    /// when the tokens are bound to the DPoP key and the client has DPoP on, else as `Authorization: Bearer`.
    private func send(
        _ request: URLRequest,
        with tokens: AuthTokens,
        limit: Int?
    ) async throws -> (Data, HTTPURLResponse) {
        var authorized = request
        guard tokens.isDPoPBound, self.connection.dpop != nil else {
            authorized.setValue("Bearer \(tokens.accessToken)", forHTTPHeaderField: "Authorization")
            return try await self.connection.perform(authorized, limit: limit)
        }
        authorized.setValue("DPoP \(tokens.accessToken)", forHTTPHeaderField: "Authorization")
        return try await self.connection.performProved(
            authorized,
            accessToken: tokens.accessToken,
            needsKey: true,
            limit: limit
        )
    }

    /// The session held now (the token store is read for it the first time), without its tokens.
    func identity() async -> SessionIdentity? {
        if let tokens = self.keeper.snapshot.current { return tokens.identity }
        return try? await self.keeper.current()?.identity
    }

    /// Whether an answer says the access token was refused: 401 with `invalid_token`, or with no authlog error. A
    /// refused DPoP proof (`invalid_dpop_proof`, `use_dpop_nonce`, in the body or the `WWW-Authenticate` challenge)
    /// is not: new tokens would not cure it.
    static func needsRefresh(_ data: Data, _ response: HTTPURLResponse) -> Bool {
        guard response.statusCode == 401, !DPoPChallenge.refusesProof(data, response) else { return false }
        let code = APIConnection.errorCode(data)
        return code == nil || code == "invalid_token"
    }
}
