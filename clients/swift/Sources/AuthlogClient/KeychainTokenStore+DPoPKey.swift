#if canImport(Security)
import Foundation
import Security

extension KeychainTokenStore {
    /// The DPoP key in its own item (account `dpop-key`), or the one `make` gives, added there when there is none.
    /// When another process (an extension) adds its own first, that one is returned: every process gets the same
    /// key. An item holding `unusable` or something else than a key is given the new one.
    /// - Parameters:
    ///   - unusable: A key the client could not use, replaced when the item holds it.
    ///   - make: Makes the key (in the Secure Enclave where the device has one).
    /// - Returns: The key.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` with the Keychain's status (such as before the device's first
    ///   unlock); what `make` threw.
    public func loadOrCreateDPoPKey(
        replacing unusable: StoredDPoPKey?,
        make: @Sendable () throws -> StoredDPoPKey
    ) throws -> StoredDPoPKey? {
        let stored = try self.storedDPoPKey()
        if let key = stored.key, key != unusable { return key }
        let made = try make()
        let data: Data
        do {
            data = try JSONEncoder().encode(made)
        } catch {
            throw AuthlogClientError(.tokenStore, detail: "The DPoP key cannot be encoded.")
        }
        if stored.exists {
            let update = [kSecValueData as String: data] as CFDictionary
            let status = SecItemUpdate(self.dpopKeyQuery as CFDictionary, update)
            guard status == errSecSuccess else { throw Self.failure("written", status) }
            return made
        }
        var item = self.dpopKeyQuery
        item[kSecValueData as String] = data
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        // Never in iCloud Keychain (an item of `…ThisDeviceOnly` cannot be anyway): the key is this install's.
        item[kSecAttrSynchronizable as String] = false
        let status = SecItemAdd(item as CFDictionary, nil)
        if status == errSecDuplicateItem, let added = try self.storedDPoPKey().key { return added }
        guard status == errSecSuccess else { throw Self.failure("added", status) }
        return made
    }

    /// Whether the key's item exists, and the key it holds (`nil` when it holds none).
    private func storedDPoPKey() throws -> (exists: Bool, key: StoredDPoPKey?) {
        var query = self.dpopKeyQuery
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return (false, nil) }
        guard status == errSecSuccess, let data = result as? Data else { throw Self.failure("read", status) }
        return (true, try? JSONDecoder().decode(StoredDPoPKey.self, from: data))
    }

    /// The attributes naming the DPoP key's item: the tokens' item's, with the account `dpop-key`.
    private var dpopKeyQuery: [String: Any] {
        var query = self.query
        query[kSecAttrAccount as String] = "dpop-key"
        return query
    }
}
#endif
