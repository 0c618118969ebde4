public import Foundation

/// The install's DPoP key (RFC 9449) as a ``TokenStore`` keeps it (``TokenStore/loadOrCreateDPoPKey(replacing:make:)``):
/// its kind and the bytes that bring it back. The client makes it; a store only keeps it.
///
/// The bytes are secret (an ordinary key's are its private key): ``description`` and ``debugDescription`` never
/// show them, and a store keeps them as it keeps the tokens (readable by the app only, never synchronized).
public struct StoredDPoPKey: Codable, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What the bytes are.
    public struct Kind: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
        /// The kind's name, as stores write it.
        public let rawValue: String

        /// Creates a kind.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// An ordinary P-256 key as its 32-byte private scalar, big-endian (CryptoKit's
        /// `P256.Signing.PrivateKey.rawRepresentation`): Linux, and Apple devices without a Secure Enclave.
        public static let p256 = Kind(rawValue: "p256")
        /// A P-256 key in the Secure Enclave as CryptoKit's `SecureEnclave.P256.Signing.PrivateKey.dataRepresentation`:
        /// an encrypted handle that only this device's Secure Enclave can use.
        public static let secureEnclaveP256 = Kind(rawValue: "secure-enclave-p256")

        /// The kind's name.
        public var description: String { self.rawValue }
    }

    /// What ``representation`` is.
    public let kind: Kind
    /// The bytes that bring the key back.
    public let representation: Data

    /// Creates a stored key.
    /// - Parameters:
    ///   - kind: What `representation` is.
    ///   - representation: The bytes that bring the key back.
    public init(kind: Kind, representation: Data) {
        self.kind = kind
        self.representation = representation
    }

    /// The kind only; the bytes are redacted.
    public var description: String { "StoredDPoPKey(\(self.kind), <redacted>)" }

    /// The same as ``description``.
    public var debugDescription: String { self.description }
}
