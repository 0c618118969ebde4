public import AuthlogCore
import Synchronization

/// The public keys of recent DPoP proofs, by their JWK: a device sends the same key with every proof, and
/// building it (OpenSSL 3's `EVP_PKEY_fromdata` and the point's check, each fetching from the provider under
/// its locks) cost more than the signature's check itself. Bounded: past ``capacity`` keys the cache starts
/// over, so a client sending a new key with each proof costs what it cost without the cache.
final class DPoPKeyCache: Sendable {
    /// A key that passed its checks, and its RFC 7638 thumbprint.
    struct Entry: Sendable {
        let key: PublicKey
        let thumbprint: String
    }

    /// The most keys kept.
    static let capacity = 8_192

    private let entries = Mutex<[[UInt8]: Entry]>([:])

    /// The process's cache.
    static let shared = DPoPKeyCache()

    /// The key of `jwk` (a JSON object without private members) with its thumbprint, built on first sight.
    /// - Throws: ``CryptoError`` when the JWK is not a usable public key.
    func entry(for jwk: JSONValue) throws(CryptoError) -> Entry {
        let name = jwk.canonicalBytes
        if let entry = self.entries.withLock({ $0[name] }) { return entry }
        let key = try PublicKey(jwkMembers: jwk)
        let entry = Entry(key: key, thumbprint: try key.jwkThumbprint())
        self.entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[name] = entry
        }
        return entry
    }
}
