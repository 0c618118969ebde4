public import AuthlogCrypto

/// The event key (`log.event_key`, kept outside the database like `data_key`): every event a holder of it
/// appends carries HMAC-SHA-256(key, digest), so that a database owner who is not the service's operator
/// cannot forge an event the sealer would seal or `verify` would pass.
public struct EventAuthenticator: Sendable {
    private let key: [UInt8]
    /// The key's id, stored in `authlog.log_head.event_key_id`: the first 16 bytes of
    /// HMAC-SHA-256(key, "authlog event key id").
    public let keyID: [UInt8]

    /// An authenticator with a 32-byte key.
    /// - Throws: ``CryptoError`` `.invalidKey` for another length.
    public init(key: [UInt8]) throws(CryptoError) {
        guard key.count == 32 else { throw CryptoError(.invalidKey, "the event key is 32 bytes") }
        self.key = key
        self.keyID = Array(
            try HMACSHA256.authenticationCode(for: Array("authlog event key id".utf8), key: key).prefix(16)
        )
    }

    /// An authenticator with a base64url key, as configured.
    /// - Throws: ``CryptoError`` `.invalidKey` when it is not 32 bytes of base64url.
    public init(base64url text: String) throws(CryptoError) {
        guard let key = Base64URL.decode(text) else { throw CryptoError(.invalidKey, "the event key is base64url") }
        try self.init(key: key)
    }

    /// The MAC of an event with `digest`.
    public func mac(of digest: [UInt8]) -> [UInt8] {
        // HMAC over 32 bytes with a 32-byte key cannot fail; an empty MAC would be refused, never accepted.
        (try? HMACSHA256.authenticationCode(for: digest, key: self.key)) ?? []
    }

    /// Whether `mac` is the MAC of `digest`, compared in constant time.
    public func isValid(_ mac: [UInt8], for digest: [UInt8]) -> Bool {
        mac.count == HMACSHA256.byteCount && HMACSHA256.isValid(mac, for: digest, key: self.key)
    }
}
