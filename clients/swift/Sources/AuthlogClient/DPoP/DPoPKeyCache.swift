/// The install's DPoP key as the client's token store gives it (``TokenStore/loadOrCreateDPoPKey(replacing:make:)``),
/// brought back once and then held for the client's life, ready to sign.
///
/// A store that keeps no key is not asked again: the client then sends no proofs. A store that cannot give the key
/// now (a Keychain error) is asked again next time. A stored key this device cannot use (another device's Secure
/// Enclave key, say, restored from a backup) is replaced by a new one, once.
actor DPoPKeyCache {
    private let store: any TokenStore
    private var maker: DPoPProofMaker?
    private var storeKeepsNone = false

    /// A cache of `store`'s key.
    init(store: any TokenStore) {
        self.store = store
    }

    /// The key's proof maker, or `nil` when the store keeps no key.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when the store cannot give the key, `.dpopKeyUnavailable` when
    ///   no usable key can be made.
    func current() async throws -> DPoPProofMaker? {
        if let maker = self.maker { return maker }
        if self.storeKeepsNone { return nil }
        guard let stored = try await self.load(replacing: nil) else {
            self.storeKeepsNone = true
            return nil
        }
        let key: any DPoPSigningKey
        do {
            key = try PlatformDPoPKey.restore(stored)
        } catch {
            guard let replacement = try await self.load(replacing: stored) else { throw error }
            key = try PlatformDPoPKey.restore(replacement)
        }
        let maker = try DPoPProofMaker(key: key)
        self.maker = maker
        return maker
    }

    /// The store's key, or a new one it keeps (in place of `unusable`, if it holds that).
    private func load(replacing unusable: StoredDPoPKey?) async throws -> StoredDPoPKey? {
        do {
            return try await self.store.loadOrCreateDPoPKey(replacing: unusable) { try PlatformDPoPKey.make() }
        } catch let error as AuthlogClientError {
            throw error
        } catch {
            throw AuthlogClientError(.tokenStore, detail: "The token store cannot give the DPoP key.")
        }
    }
}
