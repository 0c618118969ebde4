public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Sends one HTTP request and returns the answer: URLSession in apps, a counting wrapper in tests. SPI (`Testing`):
/// the server's integration tests count requests through it; apps never see it.
@_spi(Testing) public protocol HTTPTransport: Sendable {
    /// The answer to `request`.
    /// - Throws: when no answer came (the connection failed or was cut).
    func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// ``HTTPTransport`` over a `URLSession`.
@_spi(Testing) public struct URLSessionTransport: HTTPTransport {
    /// The session.
    public let session: URLSession

    /// A transport over `session`.
    public init(session: URLSession) {
        self.session = session
    }

    /// The answer to `request`.
    /// - Throws: the session's error, or ``AuthlogClientError`` `.invalidResponse` for an answer that is not HTTP.
    public func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await self.session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw AuthlogClientError(.invalidResponse) }
        return (data, http)
    }
}
