/// The typed `data` of one event type.
///
/// Each conforming type names its stored ``EventType`` explicitly, so renaming the Swift type never
/// orphans stored rows. Fields are stored with snake_case names.
public protocol EventPayload: Codable, Sendable, Equatable {
    /// The stored type name of events carrying this payload.
    static var eventType: EventType { get }
    /// The version of this payload's shape, stored in `schema_version`.
    static var schemaVersion: Int16 { get }
    /// Checks rules the payload's shape alone cannot express.
    /// - Throws: ``EventValidationError`` naming the field at fault.
    func checkContents() throws(EventValidationError)
}

extension EventPayload {
    public static var schemaVersion: Int16 { 1 }
}

extension EventPayload {
    /// Checks rules the payload's shape alone cannot express; the default accepts everything.
    /// - Throws: ``EventValidationError`` naming the field at fault.
    public func checkContents() throws(EventValidationError) {}
}

extension TokenIssued {
    /// Requires either all refresh-token fields or none, and a 32-byte hex hash.
    public func checkContents() throws(EventValidationError) {
        let refreshFields: [Any?] = [
            self.refreshTokenID, self.refreshTokenHash, self.familyID, self.refreshTokenExpiresAt,
        ]
        let present = refreshFields.filter { $0 != nil }.count
        guard present == 0 || present == refreshFields.count else {
            throw EventValidationError(
                field: "data",
                problem: "needs refresh_token_id, refresh_token_hash, family_id and refresh_token_expires_at together"
            )
        }
        if let hash = self.refreshTokenHash, Hex.decode(hash)?.count != 32 {
            throw EventValidationError(field: "data.refresh_token_hash", problem: "must be 64 hex digits")
        }
        try checkThumbprint(self.dpopJKT)
    }
}

extension TokenRefreshed {
    /// Requires a 32-byte hex hash for the new token.
    public func checkContents() throws(EventValidationError) {
        guard Hex.decode(self.newTokenHash)?.count == 32 else {
            throw EventValidationError(field: "data.new_token_hash", problem: "must be 64 hex digits")
        }
        try checkThumbprint(self.dpopJKT)
    }
}

/// A DPoP key's RFC 7638 thumbprint, when present, is 43 base64url characters (a SHA-256 digest).
private func checkThumbprint(_ thumbprint: String?) throws(EventValidationError) {
    guard let thumbprint else { return }
    let alphabet = thumbprint.utf8.allSatisfy { byte in
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x2D || byte == 0x5F
    }
    guard thumbprint.utf8.count == 43, alphabet else {
        throw EventValidationError(field: "data.dpop_jkt", problem: "must be 43 base64url characters")
    }
}
