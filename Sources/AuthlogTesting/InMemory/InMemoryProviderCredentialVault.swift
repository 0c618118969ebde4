public import AuthlogCore

/// ``ProviderCredentialVault`` in memory, with the semantics of AuthlogStore's `ProviderCredentialStore`.
public struct InMemoryProviderCredentialVault: ProviderCredentialVault {
    let storage: InMemoryStorage

    /// Keeps (or replaces) the sealed credential of an identity.
    public func save(provider: String, subjectHash: String, sealed: [UInt8], at now: Timestamp) async throws {
        self.storage.withState { state in
            state.tables.credentials[.init(provider: provider, subjectHash: subjectHash)] = sealed
        }
    }

    /// The sealed credential of an identity, if one is kept.
    public func sealed(provider: String, subjectHash: String) async throws -> [UInt8]? {
        self.storage.withState { $0.tables.credentials[.init(provider: provider, subjectHash: subjectHash)] }
    }

    /// Drops the credential of an identity.
    public func forget(provider: String, subjectHash: String) async throws {
        self.storage.withState { state in
            state.tables.credentials[.init(provider: provider, subjectHash: subjectHash)] = nil
        }
    }
}
