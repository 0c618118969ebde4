public import AuthlogCore
public import Hummingbird
import NIOCore

/// The request context of authlog's routes: Hummingbird's core storage, the peer address, and the
/// request id assigned by ``RequestIDMiddleware``.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection's peer (the client, or a proxy in front of it).
    public let peerAddress: IPAddress?
    /// The request id (`X-Request-Id`), set by ``RequestIDMiddleware``.
    public var requestID = ""
    /// The client address through the trusted proxies, once a rate-limited route has resolved it, so that
    /// the handler does not parse `X-Forwarded-For` again.
    var clientAddress: IPAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.peerAddress = source.channel.remoteAddress?.ipAddress.flatMap { IPAddress($0) }
    }
}
