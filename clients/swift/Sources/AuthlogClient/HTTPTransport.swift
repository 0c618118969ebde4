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

    /// The answer to `request`, its body read no further than `limit` bytes as it arrives (decoded bytes, when the
    /// answer has a `Content-Encoding`).
    /// - Throws: ``AuthlogClientError`` `.answerTooLarge` when the body is longer; otherwise as
    ///   ``data(for:)``.
    func data(for request: URLRequest, limit: Int) async throws -> (Data, HTTPURLResponse)
}

extension HTTPTransport {
    /// A transport that cannot read while the body arrives: the whole answer, then the bound checked on it.
    /// - Throws: ``AuthlogClientError`` `.answerTooLarge` when the body is longer than `limit`; otherwise as
    ///   ``data(for:)``.
    public func data(for request: URLRequest, limit: Int) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await self.data(for: request)
        guard data.count <= limit else {
            throw AuthlogClientError(.answerTooLarge, detail: "The answer's body is over \(limit) bytes.")
        }
        return (data, response)
    }
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

    /// The answer to `request`, its body counted as it arrives by a ``BoundedBodyReader`` that cancels the task
    /// past `limit` bytes. On Apple platforms the reader is the task's own delegate on the app's session (whose
    /// delegate still gets the rest: authentication challenges, redirects). swift-corelibs-foundation ignores a
    /// task's delegate, so on Linux the task runs in a session of its own with the app session's configuration.
    ///
    /// swift-corelibs-foundation has no back-pressure: it queues every chunk libcurl reads for the delegate, and a
    /// cancel waits until libcurl's read loop yields. Against a sender faster than the device reads (a loopback
    /// peer) it may hold more than `limit` in its queue before the cancel takes hold; this code never keeps more
    /// than `limit` bytes.
    /// - Throws: ``AuthlogClientError`` `.answerTooLarge` past `limit`, `.invalidResponse` for an answer that is
    ///   not HTTP; the session's error.
    public func data(for request: URLRequest, limit: Int) async throws -> (Data, HTTPURLResponse) {
        let reader = BoundedBodyReader(limit: limit)
        #if canImport(FoundationNetworking)
        let session = URLSession(configuration: self.session.configuration, delegate: reader, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        #else
        let task = self.session.dataTask(with: request)
        task.delegate = reader
        #endif
        return try await withTaskCancellationHandler {
            task.resume()
            return try await reader.answer()
        } onCancel: {
            task.cancel()
        }
    }
}
