#if canImport(CLibcrypto)
import AuthlogTransparency
import CLibcrypto

/// AuthlogClient's SHA-256, Ed25519 verification and random bytes on Linux, from the system's OpenSSL 3
/// libcrypto (pkg-config `libcrypto`, apt `libssl-dev`) through the package's system-library target `CLibcrypto`,
/// so that an app built on Linux compiles no crypto library of its own. Apple platforms use
/// ``CryptoKitClientCrypto``; both give the same answers to the same vectors (ClientCryptoAdapterTests).
package struct LibcryptoClientCrypto: TransparencyCrypto {
    /// SHA-256 fetched from the default provider once: with `EVP_sha256()`, OpenSSL 3 looks the implementation up
    /// again at every digest. Unsafe only in name: an `EVP_MD` is immutable once fetched, OpenSSL documents it as
    /// shareable between threads, and it is never freed (it lives as long as the process).
    nonisolated(unsafe) private static let sha256Algorithm: OpaquePointer? =
        EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()

    /// The adapter (it holds no state).
    package init() {}

    /// The SHA-256 digest of `bytes`. OpenSSL fails here only without memory or without its default provider;
    /// the program stops then, as CryptoKit's does, rather than hand out a digest that is not one.
    package func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let done = EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, Self.sha256Algorithm, nil)
        precondition(done == 1 && length == 32, "OpenSSL's SHA-256 failed: out of memory or no default provider")
        return digest
    }

    /// Whether `signature` is `publicKey`'s valid Ed25519 signature (RFC 8032) of `message`; false for any
    /// malformed input.
    package func isValidEd25519Signature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        // A refused key or signature leaves its reason on this thread's error queue; nothing reads it.
        defer { ERR_clear_error() }
        guard signature.count == 64, publicKey.count == 32,
            let key = EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, publicKey, publicKey.count)
        else { return false }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }

    /// `count` cryptographically secure random bytes from OpenSSL's generator (seeded from the kernel), or nil
    /// when the generator fails or `count` is negative or over 2³¹ − 1.
    package func randomBytes(count: Int) -> [UInt8]? {
        guard count >= 0, count <= Int(Int32.max) else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&bytes, Int32(count)) == 1 else {
            ERR_clear_error()
            return nil
        }
        return bytes
    }
}
#endif
