import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension APIConnection {
    /// Sends `request` with a DPoP proof in its `DPoP` header (with `ath` for `accessToken`, the server's latest
    /// nonce, and an `iat` by the server's clock as its answers showed it); an answer asking for a nonce
    /// (``DPoPChallenge/retryNonce(_:_:)``) sends it again, once, with a new proof carrying that nonce, and so does a
    /// refused proof whose answer showed the device's clock off by more than it was thought (``DPoPClock``).
    /// Without DPoP, or with a token store that keeps no key, `request` goes as it is.
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
        let offset = dpop.clock.offset(for: target)
        let first = try maker.proof(
            method: method,
            target: target,
            accessToken: accessToken,
            nonce: dpop.nonces.nonce(for: target),
            now: dpop.clock.now(for: target)
        )
        proved.setValue(first, forHTTPHeaderField: DPoPProver.header)
        let (data, response) = try await self.perform(proved, limit: limit)
        let nonce: String?
        if let asked = DPoPChallenge.retryNonce(data, response) {
            nonce = asked
        } else if DPoPChallenge.refusesProof(data, response),
            abs(dpop.clock.offset(for: target) - offset) >= DPoPClock.threshold
        {
            nonce = dpop.nonces.nonce(for: target)
        } else {
            return (data, response)
        }
        let second = try maker.proof(
            method: method,
            target: target,
            accessToken: accessToken,
            nonce: nonce,
            now: dpop.clock.now(for: target)
        )
        proved.setValue(second, forHTTPHeaderField: DPoPProver.header)
        return try await self.perform(proved, limit: limit)
    }

    /// The key's proof maker; when the key is not `needed`, `nil` instead of an error.
    private static func maker(of dpop: DPoPProver, needed: Bool) async throws -> DPoPProofMaker? {
        guard needed else { return try? await dpop.keys.current() }
        return try await dpop.keys.current()
    }
}
