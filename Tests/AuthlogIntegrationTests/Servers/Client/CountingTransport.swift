@_spi(Testing) import AuthlogClient
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession underneath, counting the requests per path and keeping what each carried and got.
final class CountingTransport: HTTPTransport {
    /// One request as sent, with its answer's status.
    struct Sent: Sendable {
        let path: String
        /// The `DPoP` header, if any.
        let dpop: String?
        /// The `Authorization` header's scheme (`Bearer`, `DPoP`), if any.
        let scheme: String?
        let status: Int
    }

    private let inner = URLSessionTransport(session: .shared)
    private let counts = Mutex<[String: Int]>([:])
    private let sent = Mutex<[Sent]>([])

    func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let path = request.url?.path ?? ""
        self.counts.withLock { $0[path, default: 0] += 1 }
        let answer = try await self.inner.data(for: request)
        let scheme = request.value(forHTTPHeaderField: "Authorization")?.split(separator: " ").first.map(String.init)
        let entry = Sent(
            path: path,
            dpop: request.value(forHTTPHeaderField: "DPoP"),
            scheme: scheme,
            status: answer.1.statusCode
        )
        self.sent.withLock { $0.append(entry) }
        return answer
    }

    /// The requests sent so far, in order.
    var requests: [Sent] { self.sent.withLock { $0 } }

    /// How many requests went to `path`.
    func count(_ path: String) -> Int { self.counts.withLock { $0[path] ?? 0 } }
}
