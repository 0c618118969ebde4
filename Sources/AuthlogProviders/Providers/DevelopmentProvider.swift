/// The development provider `dev`: signs in whoever the app names, with no proof at all.
///
/// It exists so that the quick start and app developers can run the whole loop without an Apple or GitHub
/// account (like Firebase's Auth emulator). It is registered only when `authlog serve --dev` (or
/// `"development": true` in the configuration) turns it on, and start-up warns loudly when it is.
public struct DevelopmentProvider: IdentityProvider {
    public let name = "dev"

    /// Creates the provider.
    public init() {}

    public func verify(_ proof: SigninProof) async throws(ProviderError) -> VerifiedIdentity {
        guard let subject = proof.subject, !subject.isEmpty, subject.utf8.count <= 255 else {
            throw ProviderError(.malformed, "the dev provider needs a subject of 1–255 bytes")
        }
        return VerifiedIdentity(provider: self.name, subject: subject, clientID: "dev", displayName: subject)
    }
}
