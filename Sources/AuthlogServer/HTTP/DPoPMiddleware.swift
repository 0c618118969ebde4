import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import Hummingbird

/// Hands every request's `DPoP` headers to the rules (``DPoPOffer/current``), with the method and the URL a
/// proof must name: `public_url` and the request's path when `public_url` is set (behind a proxy, the URL the
/// client addressed), else `http://` and the request's `Host`. When server nonces are on, every answer
/// carries the current one in `DPoP-Nonce` (RFC 9449 §8.2), errors included. A refusal the rules did not
/// record themselves (``ServiceError/tokenUseRefusal``: an access token's proof, an access token missing, not
/// valid or of an ended session, a proof at revocation) is counted into the ``RefusalRecorder``'s aggregated
/// events with the request's address and route.
struct DPoPMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// `public_url` without a trailing slash, when configured.
    let publicURL: String?
    /// The server's nonces, when proofs must carry one.
    let nonces: DPoPNonces?
    /// Where refusals the rules did not record are counted; nil in router tests without limits.
    let recorder: RefusalRecorder?
    let requestMetadata: RequestMetadataReader

    /// The longest path a recorded refusal keeps, in bytes.
    static let recordedPathLimit = 200

    init(components: AccountComponents, recorder: RefusalRecorder?) {
        self.publicURL = components.publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.nonces = components.dependencies.dpopNonces
        self.recorder = recorder
        self.requestMetadata = RequestMetadataReader(trustedProxies: components.trustedProxies)
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
            if let refusal = error.tokenUseRefusal, let recorder {
                let path = EnvelopeText.normalized(request.uri.path, limit: Self.recordedPathLimit) ?? "/"
                recorder.noteTokenUse(
                    refusal,
                    route: request.method.rawValue + " " + path,
                    metadata: self.requestMetadata.metadata(of: request, context: context)
                )
            }
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
