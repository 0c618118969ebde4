public import AuthlogCore
import Synchronization

/// The public keys of recent DPoP proofs, by their JWK: a device sends the same key with every proof, and
/// building it (OpenSSL 3's `EVP_PKEY_fromdata` and the point's check, each fetching from the provider under
/// its locks) cost more than the signature's check itself. Only a key whose proof's signature verified is kept,
/// at most ``capacity`` of them; past that, one goes for each new one. Each key holds its verification set up
/// once (``VerificationTemplate``, about 2 KiB), so a full cache holds about 16 MiB.
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

    /// The key of `jwk` (its canonical bytes), if a proof signed by it verified recently.
    func entry(named name: [UInt8]) -> Entry? {
        self.entries.withLock { $0[name] }
    }

    /// Keeps `entry`, whose proof verified, under `name`.
    func remember(_ entry: Entry, named name: [UInt8]) {
        self.entries.withLock { entries in
            if entries[name] == nil, entries.count >= Self.capacity, let any = entries.keys.first {
                entries[any] = nil
            }
            entries[name] = entry
        }
    }
}
