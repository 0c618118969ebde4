/// Why a provider proof was not accepted; the reason's raw value is the `signin.failed` reason code.
///
/// The message is for people and never holds a token, code, nonce or secret.
public struct ProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A machine-readable reason code.
    public struct Reason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { self.rawValue }

        /// The proof is not well-formed (segments, base64url, JSON, a missing field).
        public static let malformed = Reason(rawValue: "malformed")
        /// The signature does not verify.
        public static let invalidSignature = Reason(rawValue: "invalid_signature")
        /// The token's `alg` is not the provider's pinned algorithm (including `none`).
        public static let unsupportedAlg = Reason(rawValue: "unsupported_alg")
        /// No key of the provider has the token's `kid`, even after one refetch.
        public static let unknownKid = Reason(rawValue: "unknown_kid")
        /// The header carries `crit`, `jku`, `x5u`, `jwk`, `x5c` or `zip`.
        public static let forbiddenHeader = Reason(rawValue: "forbidden_header")
        /// A JSON object in the token names a member twice.
        public static let duplicateMember = Reason(rawValue: "duplicate_member")
        /// The token is too large.
        public static let tooLarge = Reason(rawValue: "too_large")
        /// The provider's key is unusable for the pinned algorithm (type, strength).
        public static let invalidKey = Reason(rawValue: "invalid_key")
        /// `exp` has passed (beyond the leeway).
        public static let expired = Reason(rawValue: "expired")
        /// `nbf` is still ahead (beyond the leeway).
        public static let notYetValid = Reason(rawValue: "not_yet_valid")
        /// `iat` lies in the future (beyond the leeway).
        public static let issuedInFuture = Reason(rawValue: "issued_in_future")
        /// `iat` is older than the provider's maximum token age.
        public static let tooOld = Reason(rawValue: "too_old")
        /// `iss` is not exactly the provider's issuer.
        public static let issuerMismatch = Reason(rawValue: "issuer_mismatch")
        /// `aud` names none of the configured client ids.
        public static let audienceMismatch = Reason(rawValue: "audience_mismatch")
        /// `aud` has several members and `azp` is absent.
        public static let azpMissing = Reason(rawValue: "azp_missing")
        /// `azp` is not a configured client id.
        public static let azpMismatch = Reason(rawValue: "azp_mismatch")
        /// A required claim is absent or has the wrong JSON type.
        public static let invalidClaim = Reason(rawValue: "invalid_claim")
        /// The token's nonce does not fit the raw nonce the app sent.
        public static let nonceMismatch = Reason(rawValue: "nonce_mismatch")
        /// The token carries no nonce and the provider's rules require one.
        public static let nonceMissing = Reason(rawValue: "nonce_missing")
        /// The (provider, nonce) pair was accepted before.
        public static let nonceReplayed = Reason(rawValue: "nonce_replayed")
        /// A server-issued nonce outlived its time to live.
        public static let nonceExpired = Reason(rawValue: "nonce_expired")
        /// The Google account is not in the required hosted domain.
        public static let hostedDomainMismatch = Reason(rawValue: "hosted_domain_mismatch")
        /// The access token was minted for another app.
        public static let appIDMismatch = Reason(rawValue: "app_id_mismatch")
        /// Two answers about one user disagree (code-exchange token vs identity token, Kakao ids).
        public static let subjectMismatch = Reason(rawValue: "subject_mismatch")
        /// The provider refused the code or token.
        public static let providerError = Reason(rawValue: "provider_error")
        /// The provider could not be reached or answered with a server error.
        public static let providerUnavailable = Reason(rawValue: "provider_unavailable")
        /// The proof kind is not one this provider accepts.
        public static let unsupportedProof = Reason(rawValue: "unsupported_proof")
    }

    /// Why the proof was refused.
    public let reason: Reason
    /// One sentence for a person.
    public let message: String
    /// The subject the provider vouched for, when the proof's signature, issuer and audience verified and a
    /// later check failed (expired, nonce missing or reused, …): such a failure counts toward the identity's
    /// lockout. `nil` for a proof that does not verify as the provider's, whose claimed subject anyone can
    /// type and which must never count against it. Never printed.
    public private(set) var vouchedSubject: String?

    /// Creates an error.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// The same failure, for a proof whose signature, issuer and audience verified for `subject`.
    public func vouched(for subject: String) -> ProviderError {
        var error = self
        error.vouchedSubject = subject
        return error
    }

    public var description: String { "\(self.reason): \(self.message)" }
}
