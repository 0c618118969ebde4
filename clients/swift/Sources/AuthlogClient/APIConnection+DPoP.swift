import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension APIConnection {
    /// Sends `request` with a DPoP proof in its `DPoP` header (with `ath` for `accessToken`, and the server's latest
    /// nonce); an answer asking for a nonce (``DPoPChallenge/retryNonce(_:_:)``) sends it again, once, with a new
    /// proof carrying that nonce. Without DPoP, or with a token store that keeps no key, `request` goes as it is.
    /// - Parameters:
    ///   - request: The request, with its `Authorization` header if it has one.
    ///   - accessToken: The access token `request` carries (`Authorization: DPoP`), or `nil`.
    ///   - needsKey: Whether the request fails when the key cannot be had now (a sign-in, tokens bound to the key);
    ///     otherwise it then goes without a proof.
    ///   - limit: The most bytes of the answer's body read, or `nil` for no bound.
    /// - Returns: The answer, of the retry when there was one.
    /// - Throws: ``AuthlogClientError``: as ``perform(_:limit:)``; `.tokenStore` or `.dpopKeyUnavailable` when the
    ///   key is needed and cannot be had, `.randomUnavailable`.
    func performProved(
        _ request: URLRequest,
        accessToken: String? = nil,
        needsKey: Bool,
        limit: Int? = nil
    ) async throws -> (Data, HTTPURLResponse) {
        guard let dpop = self.dpop else { return try await self.perform(request, limit: limit) }
        guard let url = request.url, let target = DPoPTarget(url) else {
            guard !needsKey else {
                throw AuthlogClientError(.dpopKeyUnavailable, detail: "The request's URL cannot be named in a proof.")
            }
            return try await self.perform(request, limit: limit)
        }
        guard let maker = try await Self.maker(of: dpop, needed: needsKey) else {
            return try await self.perform(request, limit: limit)
        }
        let method = request.httpMethod ?? "GET"
        var proved = request
        let first = try maker.proof(
            method: method,
            target: target,
            accessToken: accessToken,
            nonce: dpop.nonces.nonce(for: target)
        )
        proved.setValue(first, forHTTPHeaderField: DPoPProver.header)
        let (data, response) = try await self.perform(proved, limit: limit)
        guard let nonce = DPoPChallenge.retryNonce(data, response) else { return (data, response) }
        let second = try maker.proof(method: method, target: target, accessToken: accessToken, nonce: nonce)
        proved.setValue(second, forHTTPHeaderField: DPoPProver.header)
        return try await self.perform(proved, limit: limit)
    }

    /// The key's proof maker; when the key is not `needed`, `nil` instead of an error.
    private static func maker(of dpop: DPoPProver, needed: Bool) async throws -> DPoPProofMaker? {
        guard needed else { return try? await dpop.keys.current() }
        return try await dpop.keys.current()
    }
}
