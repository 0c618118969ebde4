import AuthlogCore
import AuthlogProviders
import Synchronization

/// A test-only identity provider: no socket, no token. It answers each subject with the identity a test
/// scripted for it, shaped as the real provider would give it, and refuses every other proof.
final class ScriptedProvider: GrantRevoking {
    /// How the real provider treats an email address.
    enum Email {
        /// Verified and authoritative (Apple with `email_verified`, Gmail, a Workspace domain).
        case authoritative
        /// Verified but not authoritative for the address (GitHub's primary email).
        case verifiedOnly
    }

    private struct Script {
        var identities: [String: VerifiedIdentity] = [:]
        var refusals: [String: ProviderError] = [:]
        var revokeFailure: ProviderError?
        var revoked: [(credential: String, clientID: String?)] = []
    }

    let name: String
    private let email: Email
    private let script = Mutex(Script())

    init(_ name: String, email: Email = .verifiedOnly) {
        self.name = name
        self.email = email
    }

    /// Makes a proof of `subject` verify with `email` (authoritative as the provider would say, unless
    /// `authoritative` says otherwise) and, if given, the grant credential revocation uses.
    func accept(
        _ subject: String,
        email: String? = nil,
        authoritative: Bool? = nil,
        credential: String? = nil,
        upstream: String? = nil,
        displayName: String? = nil,
        nonceCheck: NonceCheck = .matched,
        authTime: Timestamp? = nil
    ) {
        let identity = VerifiedIdentity(
            provider: self.name,
            subject: subject,
            clientID: "\(self.name)-client",
            authTime: authTime,
            nonceCheck: nonceCheck,
            verifiedEmail: email,
            emailIsAuthoritative: email != nil && (authoritative ?? (self.email == .authoritative)),
            displayName: displayName,
            upstreamProvider: upstream,
            revocationCredential: credential
        )
        self.script.withLock { $0.identities[subject] = identity }
    }

    /// Makes a proof of `subject` fail as the real provider would, with `refusal`.
    func refuse(_ subject: String, with refusal: ProviderError) {
        self.script.withLock { $0.refusals[subject] = refusal }
    }

    /// Makes grant revocation fail with `failure`, or succeed again with `nil`.
    func failRevocations(with failure: ProviderError?) { self.script.withLock { $0.revokeFailure = failure } }

    /// The credentials revocation was asked for, in order.
    var revokedCredentials: [String] { self.script.withLock { $0.revoked.map(\.credential) } }

    func verify(_ proof: SigninProof) async throws(ProviderError) -> VerifiedIdentity {
        let (identity, refusal) = self.script.withLock { script in
            (proof.subject.flatMap { script.identities[$0] }, proof.subject.flatMap { script.refusals[$0] })
        }
        if let refusal { throw refusal }
        guard let identity else { throw ProviderError(.invalidSignature, "the scripted provider refuses this proof") }
        return identity
    }

    func revokeGrant(credential: String, clientID: String?) async throws(ProviderError) {
        let failure = self.script.withLock { script in
            script.revoked.append((credential, clientID))
            return script.revokeFailure
        }
        if let failure { throw failure }
    }
}
