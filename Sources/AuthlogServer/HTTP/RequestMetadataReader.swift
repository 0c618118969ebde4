import AuthlogAccounts
import AuthlogCore
import Hummingbird

/// Builds the ``RequestMetadata`` of a request: the client address through the trusted proxies, the
/// user agent and the request id.
struct RequestMetadataReader: Sendable {
    let trustedProxies: TrustedProxies

    /// The client address through the trusted proxies.
    func clientAddress(of request: Request, context: AppRequestContext) -> IPAddress? {
        self.trustedProxies.clientAddress(
            peer: context.peerAddress,
            forwardedFor: request.headers[values: .forwardedFor]
        )
    }

    func metadata(of request: Request, context: AppRequestContext) -> RequestMetadata {
        RequestMetadata(
            ip: context.clientAddress ?? self.clientAddress(of: request, context: context),
            userAgent: request.headers[.userAgent],
            requestID: context.requestID,
            deviceID: RequestMetadata.deviceIDIfValid(request.headers[.deviceID])
        )
    }
}
