internal import COpenSSL

/// SHA-256 through OpenSSL's EVP interface, one-shot or streaming.
public struct SHA256: ~Copyable {
    /// The digest length in bytes.
    public static let byteCount = 32

    private let context: OpaquePointer  // <EVP_MD_CTX>, owned, freed in deinit

    /// SHA-256 fetched from the default provider once: with `EVP_sha256()`, OpenSSL 3 looks the implementation
    /// up again at every digest's start, which costs as much as hashing a Merkle node. Unsafe only in name: an
    /// `EVP_MD` is immutable once fetched, OpenSSL documents it as shareable between threads, and it is never
    /// freed (it lives as long as the process).
    nonisolated(unsafe) static let algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()

    /// Starts a streaming digest.
    public init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
        guard EVP_DigestInit_ex(context, Self.algorithm, nil) == 1 else {
            EVP_MD_CTX_free(context)
            fatalError("EVP_DigestInit_ex(SHA-256) failed")
        }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(self.context)
    }

    /// Feeds more bytes into the digest.
    public mutating func update(_ bytes: [UInt8]) {
        let done = bytes.withUnsafeBytes { raw in EVP_DigestUpdate(self.context, raw.baseAddress, raw.count) }
        // Not reachable from input: SHA-256 in the default provider fails only when OpenSSL itself is broken.
        precondition(done == 1, "EVP_DigestUpdate(SHA-256) failed")
    }

    /// Ends the digest and returns the 32 bytes.
    public consuming func finalize() -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Self.byteCount)
        var length: UInt32 = 0
        precondition(
            EVP_DigestFinal_ex(self.context, &output, &length) == 1 && Int(length) == Self.byteCount,
            "EVP_DigestFinal_ex(SHA-256) failed"
        )
        return output
    }

    /// The SHA-256 digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { self.hash($0) }
    }

    /// The SHA-256 digest of the bytes in `raw`, without copying them.
    public static func hash(_ raw: UnsafeRawBufferPointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Self.byteCount)
        var length: UInt32 = 0
        // A failure (an allocation inside OpenSSL) would leave 32 zero bytes that every verifier took for a hash:
        // stop instead. Not reachable from input.
        precondition(
            EVP_Digest(raw.baseAddress, raw.count, &output, &length, Self.algorithm, nil) == 1
                && Int(length) == Self.byteCount,
            "EVP_Digest(SHA-256) failed"
        )
        return output
    }

    /// The SHA-256 digest of `first ‖ second`, without building the joined buffer.
    public static func hash(_ first: [UInt8], _ second: [UInt8]) -> [UInt8] {
        var digest = SHA256()
        digest.update(first)
        digest.update(second)
        return digest.finalize()
    }

    /// Runs OpenSSL's one-time initialisation on the calling thread. A program calls it first thing on its
    /// main thread: otherwise the first digest may run on a connection's thread, and the per-thread state that
    /// OpenSSL's initialisation leaves on it is still held by that thread when the process exits (which
    /// LeakSanitizer reports as a leak).
    ///
    /// It also keeps OpenSSL from cleaning up at exit (`OPENSSL_INIT_NO_ATEXIT`): that cleanup deletes the
    /// thread-local keys of OpenSSL's per-thread state, so a thread that ends while the process exits (a
    /// connection's thread, closed with its pool) could no longer free its error state, and LeakSanitizer
    /// reported those 904 bytes now and then. The memory is the system's again when the process ends anyway.
    public static func initializeLibrary() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
        _ = self.hash([])
    }
}
