#if canImport(Security)
import Foundation
import Security

/// Tokens in the Keychain, as one generic-password item holding their JSON: on Apple platforms only (compiled
/// out elsewhere).
///
/// An app and its extensions share the session through a Keychain access group they all list in their
/// entitlements (`keychain-access-groups`), such as `TEAMID.com.example.shared`; they must share the refresh
/// lock too: a ``FileRefreshLock`` on a file in their app group's container (docs/ios.md). The item is readable
/// after the device's first unlock and never leaves the device (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`),
/// so a background refresh works while the device is locked.
///
/// The install's device id is a second generic-password item of the same service and access group, under the
/// account `device-id` (so give the tokens another account): as readable and as bound to this device as the
/// tokens', never synchronized, and shared by the app and its extensions through the access group, so that they
/// all send the same id. ``clear()`` leaves it; deleting the app may remove it.
///
/// The install's DPoP key is a third item of the same service and access group, under the account `dpop-key`, kept
/// the same way: the Secure Enclave key's encrypted handle where the device has one, else an ordinary P-256 key
/// (``StoredDPoPKey``). The app and its extensions share it through the access group, so a session one of them
/// signed in is proved by all; ``clear()`` leaves it too.
public actor KeychainTokenStore: TokenStore {
    /// The item's service (`kSecAttrService`).
    public let service: String
    /// The item's account (`kSecAttrAccount`).
    public let account: String
    /// The shared access group, or `nil` for the app's default group.
    public let accessGroup: String?
    /// The lock of the processes sharing the item, or `nil` when only this process uses it.
    public nonisolated let refreshLock: (any RefreshLock)?

    /// A store in the Keychain item `service`/`account`.
    /// - Parameters:
    ///   - service: The item's service.
    ///   - account: The item's account.
    ///   - accessGroup: The access group shared by the app and its extensions (with the team id prefix).
    ///   - refreshLock: Their shared lock, such as `FileRefreshLock(url: container.appending(path: "authlog.lock"))`
    ///     where `container` is `FileManager.default.containerURL(forSecurityApplicationGroupIdentifier:)`.
    public init(
        service: String = "authlog",
        account: String = "session",
        accessGroup: String? = nil,
        refreshLock: (any RefreshLock)? = nil
    ) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
        self.refreshLock = refreshLock
    }

    /// The stored tokens, or `nil` when there is no item.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` with the Keychain's status.
    public func load() throws -> AuthTokens? {
        var query = self.query
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else { throw Self.failure("read", status) }
        do {
            return try JSONDecoder().decode(AuthTokens.self, from: data)
        } catch {
            throw AuthlogClientError(.tokenStore, detail: "The Keychain item cannot be decoded.")
        }
    }

    /// Replaces the item's data with `tokens`, adding the item when there is none.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` with the Keychain's status.
    public func save(_ tokens: AuthTokens) throws {
        let data: Data
        do {
            data = try JSONEncoder().encode(tokens)
        } catch {
            throw AuthlogClientError(.tokenStore, detail: "The tokens cannot be encoded.")
        }
        var status = SecItemUpdate(self.query as CFDictionary, [kSecValueData as String: data] as CFDictionary)
        if status == errSecItemNotFound {
            var item = self.query
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            status = SecItemAdd(item as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw Self.failure("written", status) }
    }

    /// Deletes the tokens' item; the device id's and the DPoP key's items stay.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` with the Keychain's status.
    public func clear() throws {
        let status = SecItemDelete(self.query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.failure("deleted", status) }
    }

    /// The device id in its own item (account `device-id`), or a new one added there when there is none. When
    /// another process (an extension) adds its own first, that one is returned: every process gets the same id.
    /// An item holding something else than an id is given a new one.
    /// - Returns: 43 base64url characters over 32 random bytes.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` with the Keychain's status (such as before the device's
    ///   first unlock), `.randomUnavailable` when the system's random generator fails.
    public func loadOrCreateDeviceID() async throws -> String? {
        let stored = try self.storedDeviceID()
        if let stored, DeviceID.isWellFormed(stored) { return stored }
        let made = try DeviceID.make()
        let data = Data(made.utf8)
        if stored != nil {
            let update = [kSecValueData as String: data] as CFDictionary
            let status = SecItemUpdate(self.deviceIDQuery as CFDictionary, update)
            guard status == errSecSuccess else { throw Self.failure("written", status) }
            return made
        }
        var item = self.deviceIDQuery
        item[kSecValueData as String] = data
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        // Never in iCloud Keychain (an item of `…ThisDeviceOnly` cannot be anyway): the id names this install.
        item[kSecAttrSynchronizable as String] = false
        let status = SecItemAdd(item as CFDictionary, nil)
        if status == errSecDuplicateItem, let added = try self.storedDeviceID(), DeviceID.isWellFormed(added) {
            return added
        }
        guard status == errSecSuccess else { throw Self.failure("added", status) }
        return made
    }

    /// The device id item's contents as text, or `nil` when there is no item.
    private func storedDeviceID() throws -> String? {
        var query = self.deviceIDQuery
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else { throw Self.failure("read", status) }
        return String(decoding: data, as: UTF8.self)
    }

    /// The attributes naming the device id's item: the tokens' item's, with the account `device-id`.
    private var deviceIDQuery: [String: Any] {
        var query = self.query
        query[kSecAttrAccount as String] = "device-id"
        return query
    }

    /// The attributes naming the item.
    var query: [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: self.service,
            kSecAttrAccount as String: self.account,
            // The iOS-style Keychain on macOS too, where access groups work.
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let accessGroup = self.accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    static func failure(_ what: String, _ status: OSStatus) -> AuthlogClientError {
        AuthlogClientError(.tokenStore, detail: "The Keychain item cannot be \(what) (OSStatus \(status)).")
    }
}
#endif
