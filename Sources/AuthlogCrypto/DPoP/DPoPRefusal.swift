/// Why a DPoP proof (RFC 9449) was refused: the exact reason an event records, and the OAuth error the answer
/// carries (`use_dpop_nonce` when the server's nonce is missing or old, else `invalid_dpop_proof`).
public struct DPoPRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The check that failed; the raw value is the reason recorded in events.
    public enum Reason: String, Sendable, CaseIterable {
        /// The request needed a proof and carried none (a bound family refreshed without one).
        case missing = "dpop_missing"
        /// More than one `DPoP` header.
        case several = "dpop_several"
        /// Larger than ``DPoPProofVerifier/maximumSize``.
        case tooLarge = "dpop_too_large"
        /// Not a JWS of three base64url segments with strict JSON, or a claim of the wrong type.
        case malformed = "dpop_malformed"
        /// `typ` is not `dpop+jwt`.
        case wrongType = "dpop_wrong_type"
        /// `alg` is not an accepted asymmetric algorithm (`none`, an HMAC, RSA).
        case unsupportedAlgorithm = "dpop_unsupported_alg"
        /// `jwk` is missing, malformed, off the curve, or of another type than `alg`.
        case invalidKey = "dpop_invalid_key"
        /// `jwk` carries private key material.
        case privateKey = "dpop_private_key"
        /// The signature does not verify with `jwk`.
        case badSignature = "dpop_bad_signature"
        /// `htm` is not the request's method.
        case methodMismatch = "dpop_htm_mismatch"
        /// `htu` is not the request's URL.
        case urlMismatch = "dpop_htu_mismatch"
        /// `iat` is older than the accepted window.
        case staleIssuedAt = "dpop_iat_stale"
        /// `iat` is further in the future than the accepted skew.
        case futureIssuedAt = "dpop_iat_future"
        /// `ath` is missing or is not the hash of the access token sent with it.
        case accessTokenMismatch = "dpop_ath_mismatch"
        /// The server asks for nonces and the proof has none.
        case missingNonce = "dpop_nonce_missing"
        /// The proof's nonce is not one the server gave recently.
        case staleNonce = "dpop_nonce_stale"
        /// The proof is signed by another key than the one the tokens are bound to.
        case wrongKey = "dpop_wrong_key"
        /// The proof's `jti` was seen before within its lifetime.
        case replayed = "dpop_replayed"
        /// A proof came with a refresh token whose family was never bound to a key (issued to a sign-in without
        /// one): a family is bound at sign-in only, never later by whoever holds the token.
        case familyUnbound = "dpop_family_unbound"
    }

    /// The check that failed.
    public let reason: Reason
    /// One sentence for a person; never the proof or a key.
    public let message: String

    /// Creates a refusal.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// The OAuth error of the answer (RFC 9449 §7.1, §8): `use_dpop_nonce` when the client must fetch a
    /// fresh nonce and try again, `invalid_dpop_proof` otherwise.
    public var oauthError: String {
        switch self.reason {
        case .missingNonce, .staleNonce: return "use_dpop_nonce"
        default: return "invalid_dpop_proof"
        }
    }

    public var description: String { "\(self.reason.rawValue): \(self.message)" }
}
