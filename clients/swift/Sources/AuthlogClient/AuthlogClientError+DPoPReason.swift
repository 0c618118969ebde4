extension AuthlogClientError {
    /// Why authlog refused a DPoP proof (RFC 9449): the `reason` of its `invalid_dpop_proof` or `use_dpop_nonce`
    /// answer. Reasons this version does not name are kept as they came.
    public struct DPoPReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The reason as authlog spells it.
        public let rawValue: String

        /// Creates a reason.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The request needed a proof and carried none (a bound session refreshed without one).
        public static let missing = DPoPReason(rawValue: "dpop_missing")
        /// More than one `DPoP` header.
        public static let several = DPoPReason(rawValue: "dpop_several")
        /// The proof is larger than the server reads.
        public static let tooLarge = DPoPReason(rawValue: "dpop_too_large")
        /// Not a JWS of three base64url segments with strict JSON, or a claim of the wrong type.
        public static let malformed = DPoPReason(rawValue: "dpop_malformed")
        /// `typ` is not `dpop+jwt`.
        public static let wrongType = DPoPReason(rawValue: "dpop_wrong_type")
        /// `alg` is not one the server accepts.
        public static let unsupportedAlgorithm = DPoPReason(rawValue: "dpop_unsupported_alg")
        /// `jwk` is missing, malformed or not on its curve.
        public static let invalidKey = DPoPReason(rawValue: "dpop_invalid_key")
        /// `jwk` carries private key material.
        public static let privateKey = DPoPReason(rawValue: "dpop_private_key")
        /// The signature does not verify with `jwk`.
        public static let badSignature = DPoPReason(rawValue: "dpop_bad_signature")
        /// `htm` is not the request's method.
        public static let methodMismatch = DPoPReason(rawValue: "dpop_htm_mismatch")
        /// `htu` is not the request's URL.
        public static let urlMismatch = DPoPReason(rawValue: "dpop_htu_mismatch")
        /// `iat` is older than the server accepts (60 s by default): the device's clock is behind.
        public static let staleIssuedAt = DPoPReason(rawValue: "dpop_iat_stale")
        /// `iat` is further ahead than the server accepts (15 s by default): the device's clock is ahead.
        public static let futureIssuedAt = DPoPReason(rawValue: "dpop_iat_future")
        /// `ath` is missing or is not the hash of the access token sent.
        public static let accessTokenMismatch = DPoPReason(rawValue: "dpop_ath_mismatch")
        /// The server asks for a nonce and the proof has none.
        public static let missingNonce = DPoPReason(rawValue: "dpop_nonce_missing")
        /// The proof's nonce is not a current one.
        public static let staleNonce = DPoPReason(rawValue: "dpop_nonce_stale")
        /// The proof is signed by another key than the one the session is bound to.
        public static let wrongKey = DPoPReason(rawValue: "dpop_wrong_key")
        /// The proof's `jti` was seen before.
        public static let replayed = DPoPReason(rawValue: "dpop_replayed")
        /// The session is not bound to a key, and the call needs one that is.
        public static let familyUnbound = DPoPReason(rawValue: "dpop_family_unbound")

        /// The reason as authlog spells it.
        public var description: String { self.rawValue }
    }
}
