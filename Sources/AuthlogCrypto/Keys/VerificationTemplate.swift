internal import COpenSSL
import Synchronization

/// An `EVP_MD_CTX` set up once to verify with one key (ES256 or RS256: SHA-256 and the key's signature), and
/// copied for each verification. `EVP_DigestVerifyInit` fetches the signature and digest implementations from
/// OpenSSL 3's method store on every call, under the store's process-wide locks, which on a busy server cost
/// more than the verification itself; a copy only takes references to what the template already holds.
///
/// `@unchecked Sendable`: the context is only ever read, as the source of `EVP_MD_CTX_copy_ex`, and only under
/// `lock` (OpenSSL does not promise that two copies from one source may run at once); it is freed once, in
/// `deinit`.
final class VerificationTemplate: @unchecked Sendable {
    private let context: OpaquePointer  // <EVP_MD_CTX>
    private let lock = Mutex(())

    /// A template for `key`, whose signatures are over SHA-256; nil when OpenSSL cannot set one up.
    init?(key: EVPKey) {
        guard let context = EVP_MD_CTX_new() else { return nil }
        guard EVP_DigestVerifyInit(context, nil, SHA256.algorithm, nil, key.pointer) == 1 else {
            EVP_MD_CTX_free(context)
            _ = CryptoError.drainOpenSSLErrors()
            return nil
        }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(self.context)
    }

    /// A new context ready to verify one signature, which the caller frees; nil when the copy fails.
    func copy() -> OpaquePointer? {
        guard let copy = EVP_MD_CTX_new() else { return nil }
        let copied = self.lock.withLock { _ in EVP_MD_CTX_copy_ex(copy, self.context) == 1 }
        guard copied else {
            EVP_MD_CTX_free(copy)
            _ = CryptoError.drainOpenSSLErrors()
            return nil
        }
        return copy
    }
}
