import AuthlogCore
import AuthlogCrypto

/// How a token's `nonce` relates to the raw nonce the app sends.
public enum NonceRule: String, Sendable, Codable {
    /// The token carries lowercase hex SHA-256 of the raw nonce (Sign in with Apple on iOS).
    case sha256Hex = "sha256_hex"
    /// The token carries the raw nonce itself (Google, Kakao, GitLab, generic OIDC).
    case raw

    /// Checks the token's nonce against the app's raw nonce; returns the nonce to consume and how it was
    /// checked. Either side present without the other, or a difference, is a failure.
    func check(tokenNonce: String?, rawNonce: String?) throws(ProviderError) -> (nonce: String?, check: NonceCheck) {
        switch (tokenNonce, rawNonce) {
        case (nil, nil): return (nil, .absent)
        case (nil, _?): throw ProviderError(.nonceMissing, "the app sent a nonce but the token carries none")
        case (_?, nil): throw ProviderError(.nonceMismatch, "the token carries a nonce but the app sent no raw_nonce")
        case (let token?, let raw?):
            let expected = self == .sha256Hex ? Hex.encode(SHA256.hash(Array(raw.utf8))) : raw
            guard ConstantTime.equals(Array(token.utf8), Array(expected.utf8)) else {
                throw ProviderError(.nonceMismatch, "the token's nonce does not fit the raw nonce")
            }
            return (raw, .matched)
        }
    }
}
