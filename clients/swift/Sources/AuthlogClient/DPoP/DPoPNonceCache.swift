import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The latest `DPoP-Nonce` each server gave (RFC 9449 §8, §9), by origin, in memory: the client puts it in its next
/// proofs to that server. Any answer may carry one; a value that is not a nonce's (RFC 9449's `1*NQCHAR`, here at
/// most 1,024 characters) is ignored.
///
/// `@unchecked Sendable`: `nonces` is read and written only while `lock` is held.
final class DPoPNonceCache: @unchecked Sendable {
    /// The header that carries a server's nonce.
    static let header = "DPoP-Nonce"
    /// The most origins remembered; past it the cache starts again (an app talks to a few servers).
    private static let capacity = 64

    private let lock = NSLock()
    private var nonces: [String: String] = [:]

    /// The nonce `target`'s server gave last, if any.
    func nonce(for target: DPoPTarget) -> String? {
        self.lock.withLock { self.nonces[target.origin] }
    }

    /// Keeps the nonce `response` carries, if any, for the server that answered (at `url`, unless the answer names
    /// another after a redirect).
    func record(_ response: HTTPURLResponse, for url: URL?) {
        guard let nonce = Self.nonce(in: response),
            let answered = response.url ?? url, let target = DPoPTarget(answered)
        else { return }
        self.lock.withLock {
            if self.nonces.count >= Self.capacity, self.nonces[target.origin] == nil { self.nonces.removeAll() }
            self.nonces[target.origin] = nonce
        }
    }

    /// The `DPoP-Nonce` of `response`, when it is one.
    static func nonce(in response: HTTPURLResponse) -> String? {
        guard let value = response.value(forHTTPHeaderField: Self.header), (1...1_024).contains(value.utf8.count),
            value.utf8.allSatisfy({ $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) })
        else { return nil }
        return value
    }
}
