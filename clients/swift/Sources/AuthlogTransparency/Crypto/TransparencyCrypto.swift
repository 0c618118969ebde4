/// The hashing and signature checks the transparency code needs, given by whoever uses it: the server with
/// OpenSSL (AuthlogCrypto), an app with CryptoKit or, on Linux, the system's libcrypto (AuthlogClient). This module
/// holds no implementation of its own, so the same code runs against either.
///
/// The sealer and `authlog verify` hash millions of leaves through ``sha256(_:)-(UnsafeRawBufferPointer)``:
/// callers hand it bytes they already hold, without joining them into a new array first.
public protocol TransparencyCrypto: Sendable {
    /// The SHA-256 digest of `bytes` (32 bytes).
    func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8]

    /// Whether `signature` is a valid Ed25519 signature (RFC 8032) of `message` by the raw 32-byte `publicKey`;
    /// false for any malformed input.
    func isValidEd25519Signature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool
}

extension TransparencyCrypto {
    /// The SHA-256 digest of `bytes` (32 bytes).
    public func sha256(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { self.sha256($0) }
    }
}

/// An Ed25519 private key that signs notes or cosignatures: the log's checkpoint key or a witness's key. The
/// implementation keeps the secret; this module sees the public key and the signatures only.
public protocol Ed25519SigningKey: Sendable {
    /// The raw 32-byte public key.
    var publicKeyBytes: [UInt8] { get }

    /// The 64-byte Ed25519 signature of `message`.
    /// - Throws: whatever the implementation throws when it cannot sign.
    func signature(of message: [UInt8]) throws -> [UInt8]
}
