public import AuthlogCore
import AuthlogCrypto
public import Foundation

extension PersonalDataVault {
    /// The user's key out of `wrapped` (read with the history), or a new one kept first when the user has none.
    /// - Throws: ``StoreError`` or ``CryptoError``.
    func userKey(wrapped: [UInt8]?, for userID: UUID) async throws -> [UInt8] {
        if let wrapped { return try self.unwrap(wrapped, for: userID) }
        return try await self.userKey(for: userID)
    }

    /// `place` sealed under `userKey` for `signin.succeeded`'s `sealed_place`; nil when there is nothing to seal.
    /// - Throws: ``CryptoError``.
    func seal(_ place: SealedPlace, userKey: [UInt8], for userID: UUID) throws -> String? {
        guard let json = place.json else { return nil }
        let sealed = try AESGCM.seal(json.canonicalBytes, key: userKey, authenticating: Self.placeContext(userID))
        return Base64URL.encode(sealed.combined)
    }

    /// A sealed place opened; nil when it does not open (another user's, tampered, or the key is gone).
    func open(_ sealed: String, userKey: [UInt8], for userID: UUID) -> SealedPlace? {
        guard let bytes = Base64URL.decode(sealed), let box = try? AESGCM.SealedBox(combined: bytes),
            let plaintext = try? AESGCM.open(box, key: userKey, authenticating: Self.placeContext(userID)),
            let json = try? JSONParser().parse(plaintext)
        else { return nil }
        return SealedPlace(json: json)
    }

    /// What a sealed place is bound to: its user, apart from the profile's context.
    static func placeContext(_ userID: UUID) -> [UInt8] {
        Array("authlog.place.v1\u{0}\(userID.lowercased)".utf8)
    }
}

extension PersonalDataVault {
    /// A sealed place (`signin.succeeded`'s `sealed_place`) opened with the user's wrapped key; nil when it does
    /// not open.
    /// - Throws: ``CryptoError`` when no data key opens the wrapped key.
    public func openPlace(_ sealed: String, wrappedKey: [UInt8], for userID: UUID) throws -> SealedPlace? {
        self.open(sealed, userKey: try self.unwrap(wrappedKey, for: userID), for: userID)
    }
}
