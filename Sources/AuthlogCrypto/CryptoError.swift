internal import COpenSSL

/// The one error type of AuthlogCrypto: which check failed, never secret material.
///
/// OpenSSL's error queue is drained into ``openSSLErrors`` whenever an error is made, so one failure
/// never leaks into the next call's diagnosis.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which check failed; the raw value is the machine-readable reason code used in events.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The algorithm is not the one pinned by the caller, or is `none`.
        public static let unsupportedAlg = Code(rawValue: "unsupported_alg")
        /// The signature does not verify.
        public static let invalidSignature = Code(rawValue: "invalid_signature")
        /// The input is not well-formed (segments, base64url, JSON, lengths).
        public static let malformed = Code(rawValue: "malformed")
        /// A JSON object names a member twice.
        public static let duplicateMember = Code(rawValue: "duplicate_member")
        /// No key has the token's `kid`.
        public static let unknownKid = Code(rawValue: "unknown_kid")
        /// The key set has several keys and the token names none.
        public static let missingKid = Code(rawValue: "missing_kid")
        /// The key is too weak (RSA under 2048 bits).
        public static let weakKey = Code(rawValue: "weak_key")
        /// The key is malformed, inconsistent with its `kty`/`alg`/`use`, or off the curve.
        public static let invalidKey = Code(rawValue: "invalid_key")
        /// The key's type does not fit the pinned algorithm.
        public static let keyMismatch = Code(rawValue: "key_mismatch")
        /// The header carries `crit`, `jku`, `x5u`, `jwk`, `x5c` or `zip`.
        public static let forbiddenHeader = Code(rawValue: "forbidden_header")
        /// The token is larger than the verifier's limit.
        public static let tooLarge = Code(rawValue: "too_large")
        /// Authenticated decryption failed: wrong key, nonce, associated data or a tampered ciphertext.
        public static let decryptionFailed = Code(rawValue: "decryption_failed")
        /// OpenSSL failed for a reason that is not the input's fault.
        public static let internalFailure = Code(rawValue: "crypto_failure")

        public var description: String { self.rawValue }
    }

    /// Which check failed.
    public let code: Code
    /// One sentence for a person; holds no key, token or plaintext.
    public let message: String
    /// OpenSSL's error queue at the time, as `ERR_error_string_n` lines.
    public let openSSLErrors: [String]

    /// Creates an error and drains OpenSSL's error queue into it.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
        self.openSSLErrors = Self.drainOpenSSLErrors()
    }

    public var description: String { "\(self.code): \(self.message)" }

    public static func == (lhs: CryptoError, rhs: CryptoError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    /// Empties OpenSSL's per-thread error queue and returns its lines.
    static func drainOpenSSLErrors() -> [String] {
        var lines: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            lines.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return lines
    }
}
