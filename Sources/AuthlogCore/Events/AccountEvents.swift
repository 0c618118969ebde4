/// A provider said the user withdrew consent, or the app reported a revoked credential
/// (`provider.consent_revoked`): the user's sessions with that provider end.
public struct ProviderConsentRevoked: EventPayload {
    public static let eventType = EventType.providerConsentRevoked
    /// `apple_notification`, `kakao_unlink` or `credential_state`.
    public var source: String
    /// The provider's own id for the notice, used to drop duplicates.
    public var providerEventID: String?

    /// Creates the payload.
    public init(source: String, providerEventID: String? = nil) {
        self.source = source
        self.providerEventID = providerEventID
    }
}

/// Apple reported `email-enabled` or `email-disabled` (`provider.email_changed`).
public struct ProviderEmailChanged: EventPayload {
    public static let eventType = EventType.providerEmailChanged
    /// The notice type as Apple spells it.
    public var change: String

    /// Creates the payload.
    public init(change: String) { self.change = change }
}

/// The user was deleted: keys destroyed, provider tokens revoked (`account.deleted`).
public struct AccountDeleted: EventPayload {
    public static let eventType = EventType.accountDeleted
    /// Provider name → result of revoking its tokens (`revoked`, `failed`, `none`).
    public var providerRevocations: [String: String]

    /// Creates the payload.
    public init(providerRevocations: [String: String] = [:]) { self.providerRevocations = providerRevocations }
}

/// A signed checkpoint of the chain head (`audit.checkpoint_signed`).
public struct AuditCheckpointSigned: EventPayload {
    public static let eventType = EventType.auditCheckpointSigned
    /// The position the checkpoint pins.
    public var checkpointPosition: Int64
    /// Hex of the chain hash at that position.
    public var headHash: String
    /// The signing key's id.
    public var keyID: String
    /// Base64url Ed25519 signature.
    public var signature: String

    /// Creates the payload.
    public init(checkpointPosition: Int64, headHash: String, keyID: String, signature: String) {
        self.checkpointPosition = checkpointPosition
        self.headHash = headHash
        self.keyID = keyID
        self.signature = signature
    }
}

/// A report or export read the log (`audit.accessed`).
public struct AuditAccessed: EventPayload {
    public static let eventType = EventType.auditAccessed
    /// Who read it (operating-system user or API key id).
    public var actor: String
    /// What was asked, such as `report signins since=… until=…`.
    public var query: String

    /// Creates the payload.
    public init(actor: String, query: String) {
        self.actor = actor
        self.query = query
    }
}
