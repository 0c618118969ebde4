internal import AsyncHTTPClient
import AuthlogCore
internal import NIOCore
internal import NIOHTTP1

/// Outbound HTTP through one process-wide AsyncHTTPClient, with a per-request timeout and a cap on
/// the size of an answer.
public struct AsyncHTTPFetcher: HTTPFetching {
    /// How long one request may take, connection included.
    public var timeout: Duration
    /// The largest answer read, in bytes.
    public var maximumResponseSize: Int

    /// The process's client: up to 128 connections per host (AsyncHTTPClient's shared client allows 8,
    /// which would queue concurrent sign-ins behind one provider's API). It lives as long as the process.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 128
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// Creates a fetcher.
    public init(timeout: Duration = .seconds(5), maximumResponseSize: Int = 1 << 20) {
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
    }

    public func fetch(_ request: OutboundRequest) async throws(ProviderError) -> OutboundResponse {
        var outbound = HTTPClientRequest(url: request.url)
        outbound.method = HTTPMethod(rawValue: request.method)
        outbound.headers.add(name: "User-Agent", value: "authlog")
        for header in request.headers { outbound.headers.replaceOrAdd(name: header.name, value: header.value) }
        if let body = request.body { outbound.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await Self.client.execute(
                outbound,
                timeout: .nanoseconds(Int64(self.timeout.inSeconds * 1e9))
            )
            let body = try await response.body.collect(upTo: self.maximumResponseSize)
            return OutboundResponse(
                status: Int(response.status.code),
                headers: response.headers.map { ($0.name, $0.value) },
                body: Array(buffer: body)
            )
        } catch let error as NIOTooManyBytesError {
            throw ProviderError(.providerError, "the provider's answer is larger than allowed (\(error))")
        } catch {
            // AsyncHTTPClient's errors name what failed (connectTimeout, deadlineExceeded…) and carry no data.
            let what = error is HTTPClientError ? "\(error)" : "\(type(of: error))"
            throw ProviderError(.providerUnavailable, "the provider could not be reached: \(what)")
        }
    }
}
