import AuthlogCore
import AuthlogProviders

/// A refused sign-in proof: the provider it is recorded under, the reason, and the answer to give.
struct ProofRefusal: Error {
    /// The provider name the refusal is recorded under (`unknown` for a provider that is not enabled).
    let provider: String
    /// The `signin.failed` reason code.
    let reason: String
    /// The answer to give.
    let answer: ServiceError

    /// A proof for a provider that is not enabled: recorded under `unknown`, answered 404.
    static func unknownProvider() -> ProofRefusal {
        let reason = SigninFailureReason.unknownProvider.rawValue
        let answer = ServiceError(.notFound, reason, "No provider of that name is enabled.")
        return ProofRefusal(provider: "unknown", reason: reason, answer: answer)
    }

    /// A proof the provider refused, with the provider's reason.
    init(provider: String, refused error: ProviderError) {
        self.init(provider: provider, reason: error.reason.rawValue, answer: SigninService.answer(for: error))
    }

    /// A request whose body could not be read.
    init(provider: String, unreadable reason: RequestRefusalReason, answer: ServiceError) {
        self.init(provider: provider, reason: reason.rawValue, answer: answer)
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
