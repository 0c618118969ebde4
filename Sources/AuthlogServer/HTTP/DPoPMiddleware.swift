import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import Hummingbird

/// Hands every request's `DPoP` headers to the rules (``DPoPOffer/current``), with the method and the URL a
/// proof must name: `public_url` and the request's path when `public_url` is set (behind a proxy, the URL the
/// client addressed), else `http://` and the request's `Host`. When server nonces are on, every answer
/// carries the current one in `DPoP-Nonce` (RFC 9449 §8.2), errors included.
struct DPoPMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// `public_url` without a trailing slash, when configured.
    let publicURL: String?
    /// The server's nonces, when proofs must carry one.
    let nonces: DPoPNonces?

    init(components: AccountComponents) {
        self.publicURL = components.publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.nonces = components.dependencies.dpopNonces
    }

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        let proofs = request.headers[values: .dpop]
        let scheme = request.headers[.authorization]?.split(separator: " ", maxSplits: 1).first.map(String.init)
        let offer =
            proofs.isEmpty && scheme == nil
            ? nil
            : DPoPOffer(
                proofs: proofs,
                method: request.method.rawValue,
                target: self.target(of: request),
                authorizationScheme: scheme
            )
        do {
            var response = try await DPoPOffer.$current.withValue(offer) { try await next(request, context) }
            if let nonces { response.headers[.dpopNonce] = nonces.current(at: .now()) }
            return response
        } catch var error as ServiceError {
            if let nonces { error.headers[.dpopNonce] = nonces.current(at: .now()) }
            throw error
        }
    }

    /// The URL the client addressed, without query or fragment; nil when it cannot be formed.
    private func target(of request: Request) -> DPoPTarget? {
        let path = request.uri.path
        if let base = self.publicURL { return DPoPTarget(base + path) }
        guard let authority = request.head.authority, !authority.isEmpty else { return nil }
        return DPoPTarget("http://" + authority + path)
    }
}
