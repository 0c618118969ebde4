public import AuthlogCore
import AuthlogCrypto
public import Foundation

/// Seals personal data (display name, verified email) with a per-user key before it enters an event.
///
/// The user's key is random, wrapped under the service's data key and kept in `authlog.user_keys`;
/// erasing a user deletes that row, after which the sealed fields cannot be read while the log,
/// computed over the ciphertext, still verifies (crypto-shredding). After a rotation of the data key, keys
/// wrapped under a previous one still open until `authlog keys rewrap` has wrapped them under the new one.
public struct PersonalDataVault: Sendable {
    let dataKey: [UInt8]
    let previousKeys: [[UInt8]]
    let keys: any UserKeyRing

    /// Creates a vault with the service's 32-byte data key (and the data keys it replaced) over the key table.
    public init(dataKey: [UInt8], previousKeys: [[UInt8]] = [], keys: any UserKeyRing) {
        self.dataKey = dataKey
        self.previousKeys = previousKeys
        self.keys = keys
    }

    /// The sealed profile of a new user, or `nil` when there is nothing personal to keep.
    /// - Throws: ``StoreError`` or ``CryptoError``.
    public func sealProfile(displayName: String?, email: String?, for userID: UUID) async throws -> String? {
        var members: [(name: String, value: JSONValue)] = []
        if let displayName { members.append(("display_name", .string(displayName))) }
        if let email { members.append(("email", .string(email))) }
        guard !members.isEmpty else { return nil }
        let userKey = try await self.userKey(for: userID)
        let sealed = try AESGCM.seal(
            JSONValue.object(members).canonicalBytes,
            key: userKey,
            authenticating: Array(userID.lowercased.utf8)
        )
        return Base64URL.encode(sealed.combined)
    }

    /// Opens a sealed profile; `nil` when the user's key has been erased.
    /// - Throws: ``StoreError`` or ``CryptoError`` when the data was tampered with.
    public func openProfile(_ sealed: String, for userID: UUID) async throws -> JSONValue? {
        guard let wrapped = try await self.keys.wrappedKey(for: userID), let bytes = Base64URL.decode(sealed) else {
            return nil
        }
        let userKey = try self.unwrap(wrapped, for: userID)
        let plaintext = try AESGCM.open(
            try AESGCM.SealedBox(combined: bytes),
            key: userKey,
            authenticating: Array(userID.lowercased.utf8)
        )
        return try JSONParser().parse(plaintext)
    }

    func userKey(for userID: UUID) async throws -> [UInt8] {
        let fresh = try SecureRandom.bytes(count: 32)
        let wrapped = try AESGCM.seal(fresh, key: self.dataKey, authenticating: Self.wrapContext(userID)).combined
        let stored = try await self.keys.keepFirst(wrapped, for: userID, at: .now())
        return try self.unwrap(stored, for: userID)
    }

    /// The user's key out of `wrapped`, under the data key or else a previous one.
    /// - Throws: ``CryptoError`` when none of them opens it.
    func unwrap(_ wrapped: [UInt8], for userID: UUID) throws -> [UInt8] {
        let box = try AESGCM.SealedBox(combined: wrapped)
        if let opened = DataKeyOpening.open(
            box,
            keys: [self.dataKey] + self.previousKeys,
            context: Self.wrapContext(userID)
        ) {
            return opened
        }
        throw CryptoError(.decryptionFailed, "the user's key opens with no data key")
    }

    /// What a wrapped user key is bound to: its user.
    static func wrapContext(_ userID: UUID) -> [UInt8] {
        Array("authlog.user_key.v1\u{0}\(userID.lowercased)".utf8)
    }
}

extension PersonalDataVault {
    /// What read paths show in place of personal data whose key was destroyed.
    public static let erased = "[erased]"

    /// The profile's members for people to read: the opened values, or ``erased`` for each member when the
    /// user's key has been destroyed (the account was deleted).
    /// - Throws: ``StoreError``, or ``CryptoError`` when the sealed data was tampered with.
    public func readableProfile(_ sealed: String, for userID: UUID) async throws -> [(name: String, value: String)] {
        guard let profile = try await self.openProfile(sealed, for: userID) else {
            return [("display_name", Self.erased), ("email", Self.erased)]
        }
        guard case .object(let members) = profile else { return [] }
        return members.map { ($0.name, $0.value.stringValue ?? Self.erased) }
    }
}
