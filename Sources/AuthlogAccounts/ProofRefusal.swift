import AuthlogCore
import AuthlogCrypto
import AuthlogProviders

/// A refused sign-in proof: the provider it is recorded under, the reason, and the answer to give.
struct ProofRefusal: Error {
    /// The provider name the refusal is recorded under (`unknown` for a provider that is not enabled).
    let provider: String
    /// The `signin.failed` reason code.
    let reason: String
    /// The answer to give.
    let answer: ServiceError
    /// The subject the provider vouched for before a later check failed: the failure counts toward that
    /// identity's lockout. `nil` for a proof that did not verify as the provider's.
    var vouchedSubject: String?
    /// The identity's keyed subject hash, when the refusal already knows it (a locked identity).
    var subjectHash: String?

    /// A proof for a provider that is not enabled: recorded under `unknown`, answered 404.
    static func unknownProvider() -> ProofRefusal {
        let reason = SigninFailureReason.unknownProvider.rawValue
        let answer = ServiceError(.notFound, reason, "No provider of that name is enabled.")
        return ProofRefusal(provider: "unknown", reason: reason, answer: answer)
    }

    /// A proof the provider refused, with the provider's reason (and the subject, if it vouched for it).
    init(provider: String, refused error: ProviderError) {
        self.init(provider: provider, reason: error.reason.rawValue, answer: SigninService.answer(for: error))
        self.vouchedSubject = error.vouchedSubject
    }

    /// A sign-in of a locked identity: recorded as `identity_locked`, answered exactly as a proof whose
    /// signature does not verify (``IdentityLocks/lockedAnswer``), so the answer tells nothing of the lock.
    static func locked(provider: String, subjectHash: String) -> ProofRefusal {
        var refusal = ProofRefusal(
            provider: provider,
            reason: SigninFailureReason.identityLocked.rawValue,
            answer: IdentityLocks.lockedAnswer
        )
        refusal.subjectHash = subjectHash
        return refusal
    }

    /// Whether the refusal counts toward the identity's lockout: the provider vouched for the subject, and
    /// the identity was not refused for being locked already.
    var countsTowardLockout: Bool {
        self.vouchedSubject != nil && self.reason != SigninFailureReason.identityLocked.rawValue
    }

    /// A request whose body could not be read.
    init(provider: String, unreadable reason: RequestRefusalReason, answer: ServiceError) {
        self.init(provider: provider, reason: reason.rawValue, answer: answer)
    }

    /// A refused DPoP proof: its exact reason (`dpop_bad_signature`, …) is recorded; it names no subject, so
    /// it never counts toward a lockout.
    init(provider: String, dpop refusal: DPoPRefusal, answer: ServiceError) {
        self.init(provider: provider, reason: refusal.reason.rawValue, answer: answer)
    }

    /// A failure of our own (store, randomness): its answer's code is the reason.
    init(provider: String, failure answer: ServiceError) {
        self.init(provider: provider, reason: answer.code, answer: answer)
    }

    private init(provider: String, reason: String, answer: ServiceError) {
        self.provider = provider
        self.reason = reason
        self.answer = answer
    }
}
