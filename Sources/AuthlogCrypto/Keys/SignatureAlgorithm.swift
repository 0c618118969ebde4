/// The JWS algorithms authlog verifies and signs with (RFC 7518, RFC 8037).
public enum SignatureAlgorithm: String, Sendable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256; keys of 2048 bits or more.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256; signatures are the 64 bytes r‖s.
    case es256 = "ES256"
    /// Ed25519.
    case edDSA = "EdDSA"

    /// The JWK `kty` of keys for this algorithm.
    public var keyType: String {
        switch self {
        case .rs256: return "RSA"
        case .es256: return "EC"
        case .edDSA: return "OKP"
        }
    }
}
