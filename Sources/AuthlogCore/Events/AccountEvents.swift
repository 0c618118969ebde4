/// A provider said the user withdrew consent, or the app reported a revoked credential
/// (`provider.consent_revoked`): the user's sessions with that provider end.
public struct ProviderConsentRevoked: EventPayload {
    public static let eventType = EventType.providerConsentRevoked
    /// Who said so.
    public var source: ConsentRevocationSource
    /// The provider's own id for the notice, used to drop duplicates.
    public var providerEventID: String?

    /// Creates the payload.
    public init(source: ConsentRevocationSource, providerEventID: String? = nil) {
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
    /// Provider name → what became of revoking the user's grant there.
    public var providerRevocations: [String: ProviderRevocationResult]
    /// What asked for the deletion: `user` (`DELETE /v1/me`) or `apple_notification` (`account-delete`).
    public var requestedBy: String?

    /// Creates the payload.
    public init(providerRevocations: [String: ProviderRevocationResult] = [:], requestedBy: String? = nil) {
        self.providerRevocations = providerRevocations
        self.requestedBy = requestedBy
    }
}

/// One attempt to revoke a deleted user's grant at a provider (`provider.revocation_attempted`):
/// Apple `/auth/revoke`, GitHub grant deletion or Kakao unlink. Failed attempts are retried with backoff.
public struct ProviderRevocationAttempted: EventPayload {
    public static let eventType = EventType.providerRevocationAttempted
    /// 1 for the attempt made at deletion, then 2, 3, … for the retries.
    public var attempt: Int
    /// `revoked`, `queued` (failed, will be retried) or `abandoned` (failed, no more retries).
    public var result: ProviderRevocationResult
    /// What the provider answered, for a failure (`HTTP 503`, `unreachable`); never a token.
    public var detail: String?

    /// Creates the payload.
    public init(attempt: Int, result: ProviderRevocationResult, detail: String? = nil) {
        self.attempt = attempt
        self.result = result
        self.detail = detail
    }
}

/// A provider called authlog (`provider.notification_received`, stream `provider-<name>`): an Apple
/// server-to-server notification or a Kakao unlink callback, whether it was accepted, refused or a duplicate.
public struct ProviderNotificationReceived: EventPayload {
    public static let eventType = EventType.providerNotificationReceived
    /// The notice's type as the provider spells it (`consent-revoked`, `account-delete`, `unlink`, …).
    public var notice: String?
    /// The provider's id for the notice (Apple's `jti`).
    public var noticeID: String?
    /// The keyed hash of the subject it names, when it names one.
    public var subjectHash: String?
    /// Kakao's `referrer_type` (`UNLINK_FROM_APPS`, `ACCOUNT_DELETE`, …).
    public var referrerType: String?
    /// When the provider says the event happened (Apple's `event_time`), if it said; absent in payloads
    /// recorded before notices were held to their time.
    public var eventTime: Timestamp?
    /// The sessions the notice ends (lowercase ids), for a notice that was acted on.
    public var sessionsEnded: [String]?
    /// The sessions the notice leaves alone, and why (they started after its `event_time`).
    public var sessionsLeft: [NoticeSessionLeft]?

    /// Creates the payload.
    public init(
        notice: String? = nil,
        noticeID: String? = nil,
        subjectHash: String? = nil,
        referrerType: String? = nil,
        eventTime: Timestamp? = nil
    ) {
        self.notice = notice
        self.noticeID = noticeID
        self.subjectHash = subjectHash
        self.referrerType = referrerType
        self.eventTime = eventTime
    }
}

/// A sensitive action of a signed-in user was refused (`account.action_refused`): the re-authentication
/// was too long ago, the identity belongs to someone else, the last identity cannot be unlinked, ….
public struct AccountActionRefused: EventPayload {
    public static let eventType = EventType.accountActionRefused
    /// What the user tried.
    public var action: AccountAction
    /// The provider it concerned, if any.
    public var provider: String?

    /// Creates the payload.
    public init(action: AccountAction, provider: String? = nil) {
        self.action = action
        self.provider = provider
    }
}

/// The user reported an entry of their own activity as not theirs (`account.not_me_reported`,
/// `POST /v1/me/activity/{event_id}/not-me`); every session of theirs ended in the same command, each with
/// `session.revoked`, reason `not_me`.
public struct AccountNotMeReported: EventPayload {
    public static let eventType = EventType.accountNotMeReported
    /// The entry reported (`event_id` of an event of the user's activity).
    public var reportedEventID: String
    /// Its type.
    public var reportedType: String
    /// The sessions ended (lowercase ids), in the order of their `session.revoked`.
    public var sessionsEnded: [String]
    /// The device the reported sign-in came from (its `device_key`: the `signin.succeeded` reported, or the one
    /// the reported `signin.flagged` judged), disowned: from here on the user's sign-ins from it count for
    /// nothing in their history, so that device is new again (docs/signin.md, "Sign-in alerts"). Absent when the
    /// entry names no sign-in that recorded a device.
    public var disownedDeviceKeys: [String]?

    /// Creates the payload.
    public init(
        reportedEventID: String,
        reportedType: String,
        sessionsEnded: [String],
        disownedDeviceKeys: [String]? = nil
    ) {
        self.reportedEventID = reportedEventID
        self.reportedType = reportedType
        self.sessionsEnded = sessionsEnded
        self.disownedDeviceKeys = disownedDeviceKeys
    }
}

/// A signed checkpoint of the log's Merkle tree (`audit.checkpoint_signed`).
public struct AuditCheckpointSigned: EventPayload {
    public static let eventType = EventType.auditCheckpointSigned
    /// The tree size the checkpoint pins.
    public var treeSize: Int64
    /// Base64 of the tree's root hash at that size.
    public var rootHash: String
    /// The signing key's name (the log's origin).
    public var keyName: String
    /// Hex of the key hash in the note's signature line.
    public var keyHash: String

    /// Creates the payload.
    public init(treeSize: Int64, rootHash: String, keyName: String, keyHash: String) {
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.keyName = keyName
        self.keyHash = keyHash
    }
}

/// A report or export read the log (`audit.accessed`).
public struct AuditAccessed: EventPayload {
    public static let eventType = EventType.auditAccessed
    /// Who read it (operating-system user or API key id).
    public var actor: String
    /// What was asked, such as `report signins since=… until=…`.
    public var query: String
    /// `replica` when the read was served by a read replica; absent when the primary served it.
    public var readFrom: String?
    /// How long ago the oldest sealed event the replica lacked was recorded, in milliseconds, when the read
    /// began (0: it had them all).
    public var replicaLagMs: Int64?
    /// How many bytes of the primary's write-ahead log the replica had not replayed then.
    public var replicaBehindBytes: Int64?
    /// For an aggregated record (refused or anonymous requests from one address in one window, the first of
    /// which was recorded alone): how many requests it accounts for. Absent: this one request.
    public var count: Int?
    /// For an aggregated record: its requests by refusal reason (or `anonymous_read`).
    public var reasons: [String: Int]?
    /// For an aggregated record: when its first and last request came (ISO 8601).
    public var firstAt: String?
    public var lastAt: String?
    /// For an aggregated record: the window's length, seconds.
    public var windowSeconds: Int?

    /// Creates the payload; `replicaLag` when a read replica served the read.
    public init(actor: String, query: String, replicaLag: (milliseconds: Int64, bytesBehind: Int64)? = nil) {
        self.actor = actor
        self.query = query
        if let replicaLag {
            self.readFrom = "replica"
            self.replicaLagMs = replicaLag.milliseconds
            self.replicaBehindBytes = replicaLag.bytesBehind
        }
    }
}

/// Retention dropped the oldest months of the log (`audit.retention_applied`), after checking that a signed
/// checkpoint covers them and that each was exported.
public struct AuditRetentionApplied: EventPayload {
    public static let eventType = EventType.auditRetentionApplied
    /// Who applied it (`os:USER@HOST`).
    public var actor: String
    /// The dropped months, oldest first (`YYYY-MM`).
    public var months: [String]
    /// How many months are kept (the `--keep` given).
    public var keepMonths: Int
    /// The last dropped position: the log now starts at the next one.
    public var lastDroppedPosition: Int64
    /// How many events were dropped.
    public var droppedEvents: Int64
    /// Hex of the root of the tree of the dropped positions: verification continues from it.
    public var rootAtDrop: String
    /// The signed checkpoint that covers the dropped positions.
    public var coveringCheckpoint: Int64
    /// Hex SHA-256 of each month's export file, in the order of `months`.
    public var exportHashes: [String]

    /// Creates the payload.
    public init(
        actor: String,
        months: [String],
        keepMonths: Int,
        lastDroppedPosition: Int64,
        droppedEvents: Int64,
        rootAtDrop: String,
        coveringCheckpoint: Int64,
        exportHashes: [String]
    ) {
        self.actor = actor
        self.months = months
        self.keepMonths = keepMonths
        self.lastDroppedPosition = lastDroppedPosition
        self.droppedEvents = droppedEvents
        self.rootAtDrop = rootAtDrop
        self.coveringCheckpoint = coveringCheckpoint
        self.exportHashes = exportHashes
    }
}
