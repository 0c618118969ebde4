import AuthlogAccounts
import AuthlogCore
import Hummingbird

/// Builds the ``RequestMetadata`` of a request: the client address through the trusted proxies, the
/// user agent and the request id.
struct RequestMetadataReader: Sendable {
    let trustedProxies: TrustedProxies

    func metadata(of request: Request, context: AppRequestContext) -> RequestMetadata {
        let forwardedFor = request.headers[values: .forwardedFor]
        return RequestMetadata(
            ip: self.trustedProxies.clientAddress(peer: context.peerAddress, forwardedFor: forwardedFor),
            userAgent: request.headers[.userAgent],
            requestID: context.requestID
        )
    }
}
