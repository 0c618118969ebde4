@_spi(Testing) import AuthlogClient
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession underneath, counting the requests per path.
final class CountingTransport: HTTPTransport {
    private let inner = URLSessionTransport(session: .shared)
    private let counts = Mutex<[String: Int]>([:])

    func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let path = request.url?.path ?? ""
        self.counts.withLock { $0[path, default: 0] += 1 }
        return try await self.inner.data(for: request)
    }

    /// How many requests went to `path`.
    func count(_ path: String) -> Int { self.counts.withLock { $0[path] ?? 0 } }
}
