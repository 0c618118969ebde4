import AuthlogCore
import AuthlogCrypto

/// An opaque refresh token: 256 random bits, base64url, behind a recognisable prefix (so secret
/// scanners can spot a leaked one). Only its SHA-256 is ever stored.
struct RefreshTokenSecret: Sendable {
    static let prefix = "alr_"

    /// The token handed to the app.
    let token: String
    /// SHA-256 of the token, the only thing stored.
    let hash: [UInt8]

    /// Makes a new random token.
    static func make() throws(CryptoError) -> RefreshTokenSecret {
        let token = Self.prefix + Base64URL.encode(try SecureRandom.bytes(count: 32))
        return RefreshTokenSecret(token: token, hash: Self.hash(of: token))
    }

    /// The stored hash of a presented token.
    static func hash(of token: String) -> [UInt8] { SHA256.hash(Array(token.utf8)) }
}
