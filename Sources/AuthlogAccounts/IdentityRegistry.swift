import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import Foundation

/// Where a verified identity stands.
enum IdentityStanding: Sendable, Equatable {
    /// It belongs to an existing user, under this subject hash.
    case linked(userID: UUID, subjectHash: String)
    /// Nobody holds it: a registration or link uses this subject hash (the first free generation).
    case unregistered(subjectHash: String)

    /// The subject hash either way.
    var subjectHash: String {
        switch self {
        case .linked(_, let hash), .unregistered(let hash): return hash
        }
    }

    /// The user it belongs to, when linked.
    var userID: UUID? {
        if case .linked(let userID, _) = self { return userID }
        return nil
    }
}

/// Identities as the service keeps them: the keyed subject hashes and their generations, verified emails as
/// keyed hashes, and the credentials that revoke a user's grant at deletion, sealed under the data key.
struct IdentityRegistry: Sendable {
    /// How many subject-hash generations one lookup asks for.
    static let generationsPerLookup = 2

    let dependencies: ServiceDependencies

    /// Finds whether `identity` belongs to a user.
    /// - Throws: ``ServiceError`` 503/500 from the store, 409 when the subject went through every generation.
    func standing(of identity: VerifiedIdentity) async throws(ServiceError) -> IdentityStanding {
        try await self.standing(provider: identity.provider, subject: identity.subject)
    }

    /// Finds whether the identity `provider`/`subject` belongs to a user.
    /// - Throws: as ``standing(of:)``.
    func standing(provider: String, subject: String) async throws(ServiceError) -> IdentityStanding {
        try await self.standing(provider: provider, subject: subject) {
            hashes -> [String: (identity: IdentityRecord, history: Never?)] in
            try await self.dependencies.queries.identities(provider: provider, subjectHashes: hashes)
                .mapValues { (identity: $0, history: nil) }
        }.standing
    }

    /// The standing of `identity` and, when it is linked, its user's sign-in history (sign-in alerts), read
    /// with the identity in one statement.
    /// - Throws: as ``standing(of:)``.
    func standingWithHistory(
        of identity: VerifiedIdentity,
        rules: SigninAlertRules
    ) async throws(ServiceError) -> (standing: IdentityStanding, history: RecentSignins?) {
        let reads = self.dependencies.signinHistory
        let found = try await self.standing(provider: identity.provider, subject: identity.subject) { hashes in
            try await reads.identitiesWithHistory(
                provider: identity.provider,
                subjectHashes: hashes,
                limit: rules.historySignins,
                devices: rules.judge.maximumDevices,
                areas: rules.judge.maximumAreas
            )
        }
        return (found.standing, found.history)
    }

    /// The standing found by `lookup` (the rows of some subject hashes, each with what it brings along), and
    /// what the linked row brought.
    private func standing<Extra: Sendable>(
        provider: String,
        subject: String,
        lookup: ([String]) async throws -> [String: (identity: IdentityRecord, history: Extra?)]
    ) async throws(ServiceError) -> (standing: IdentityStanding, history: Extra?) {
        // Generations are looked up a few at a time: almost every identity is found at generation 0, and each
        // hash is an HMAC and an index probe on the sign-in path.
        let hasher = self.dependencies.hasher
        for first in stride(from: 0, to: IdentityHasher.maximumGenerations, by: Self.generationsPerLookup) {
            let last = min(first + Self.generationsPerLookup, IdentityHasher.maximumGenerations)
            let hashes = (first..<last).map { hasher.subjectHash(provider: provider, subject: subject, generation: $0) }
            let rows = try await self.dependencies.storeCall { try await lookup(hashes) }
            for hash in hashes {
                guard let row = rows[hash] else { return (.unregistered(subjectHash: hash), nil) }
                if !row.identity.isReleased && row.identity.userIsActive {
                    return (.linked(userID: row.identity.userID, subjectHash: hash), row.history)
                }
            }
        }
        throw ServiceError(.conflict, "identity_exhausted", "This identity cannot be registered again.")
    }

    /// The users who already hold the verified email of `identity`, which was unregistered when its standing
    /// was read (none when it has no email); `nil` when the identity has been registered since.
    ///
    /// An identity's email is stored only after the sign-in that registered it has committed
    /// (``remember(_:subjectHash:userID:)``). So a first sign-in that runs beside another first sign-in of the
    /// same identity can find the identity free and, a moment later, its email held: by the user the other
    /// sign-in has just registered for this very identity. When the email has owners, the standing is
    /// therefore read again after them. An identity linked by then is its user's own, and the sign-in decides
    /// again; one still free cannot be an owner's, since its email is stored only once it is linked.
    /// - Throws: ``ServiceError`` from the store.
    func emailOwners(ofUnregistered identity: VerifiedIdentity) async throws(ServiceError) -> [EmailOwner]? {
        guard let email = identity.verifiedEmail else { return [] }
        let hash = self.dependencies.hasher.emailHash(email)
        let owners = try await self.dependencies.storeCall { try await self.dependencies.emails.owners(of: hash) }
        guard !owners.isEmpty else { return owners }
        if case .linked = try await self.standing(of: identity) { return nil }
        return owners
    }

    /// Keeps what the identity proved for later: its verified email (keyed hash) and, with a data key, the
    /// credential that revokes its grant at account deletion.
    /// - Throws: ``ServiceError`` from the store or when sealing fails.
    func remember(_ identity: VerifiedIdentity, subjectHash: String, userID: UUID) async throws(ServiceError) {
        if let email = identity.verifiedEmail {
            let hash = self.dependencies.hasher.emailHash(email)
            try await self.dependencies.storeCall {
                try await self.dependencies.emails.record(
                    emailHash: hash,
                    userID: userID,
                    provider: identity.provider,
                    authoritative: identity.emailIsAuthoritative,
                    at: .now()
                )
            }
        }
        guard let credential = identity.revocationCredential, let key = self.dependencies.dataKey else { return }
        var members: [(name: String, value: JSONValue)] = [("credential", .string(credential))]
        if let clientID = identity.clientID { members.append(("client_id", .string(clientID))) }
        let associated = Self.credentialContext(provider: identity.provider, subjectHash: subjectHash)
        guard
            let sealed = try? AESGCM.seal(
                JSONValue.object(members).canonicalBytes,
                key: key,
                authenticating: associated
            )
        else {
            throw ServiceError(.internalServerError, "internal_error", "The provider credential could not be sealed.")
        }
        try await self.dependencies.storeCall {
            try await self.dependencies.credentials.save(
                provider: identity.provider,
                subjectHash: subjectHash,
                sealed: sealed.combined,
                at: .now()
            )
        }
    }

    /// Opens a sealed credential: the credential and the client it was issued to; `nil` when it cannot be
    /// opened (no data key, or not sealed by it).
    func openCredential(
        _ sealed: [UInt8],
        provider: String,
        subjectHash: String
    ) -> (credential: String, clientID: String?)? {
        guard let key = self.dependencies.dataKey, let box = try? AESGCM.SealedBox(combined: sealed),
            let plain = DataKeyOpening.open(
                box,
                keys: [key] + self.dependencies.previousDataKeys,
                context: Self.credentialContext(provider: provider, subjectHash: subjectHash)
            ),
            let document = try? JSONParser(maximumDepth: 2).parse(plain),
            let credential = document["credential"]?.stringValue
        else { return nil }
        return (credential, document["client_id"]?.stringValue)
    }

    /// What a sealed provider credential is bound to: its identity.
    static func credentialContext(provider: String, subjectHash: String) -> [UInt8] {
        Array("authlog.provider_credential.v2\u{0}\(provider)\u{0}\(subjectHash)".utf8)
    }
}
