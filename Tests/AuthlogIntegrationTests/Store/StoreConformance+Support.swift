import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation

/// The two stores the conformance suite holds to one behaviour.
enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case memory
    case postgres

    var description: String { self.rawValue }
}

/// An event store and every account-state port over one state: a fresh PostgreSQL database or fresh memory.
struct StoreUnderTest: Sendable {
    let events: any EventStore
    let sessions: any SessionReads
    let expiry: any SessionExpiryReads
    let nonces: any NonceLedger
    let dpopProofs: any DPoPProofLedger
    let credentials: any ProviderCredentialVault
    let emails: any EmailOwnership
    let revocations: any ProviderRevocationQueue
    let notices: any ProviderNoticeClaims
    let userKeys: any UserKeyRing
    let ownAccount: any OwnAccountReads
    let lockouts: any IdentityLockouts
    let signinHistory: any SigninHistoryReads
    /// The PostgreSQL database under test; `nil` in memory.
    var database: TestDatabase? = nil

    /// A fresh store of `kind`; `nil` for PostgreSQL when no test cluster is configured (outside CI).
    static func make(_ kind: StoreKind) async throws -> StoreUnderTest? {
        switch kind {
        case .memory:
            let stores = InMemoryStores()
            return StoreUnderTest(
                events: stores.events,
                sessions: stores.sessions,
                expiry: stores.sessionExpiry,
                nonces: stores.nonces,
                dpopProofs: stores.dpopProofs,
                credentials: stores.credentials,
                emails: stores.emails,
                revocations: stores.revocations,
                notices: stores.notices,
                userKeys: stores.userKeys,
                ownAccount: stores.ownAccount,
                lockouts: stores.lockouts,
                signinHistory: stores.accountState.signinHistory
            )
        case .postgres:
            guard TestDatabase.isAvailable else { return nil }
            let database = try await TestDatabase.make()
            let pool = ConnectionPool(conninfo: database.conninfo, maximumConnections: 4)
            return StoreUnderTest(
                events: PostgresEventStore(pool: pool),
                sessions: SessionQueries(pool: pool),
                expiry: SessionExpiryQueries(pool: pool),
                nonces: NonceStore(pool: pool),
                dpopProofs: DPoPProofStore(pool: pool),
                credentials: ProviderCredentialStore(pool: pool),
                emails: UserEmailStore(pool: pool),
                revocations: RevocationQueue(pool: pool),
                notices: ProviderNoticeStore(pool: pool),
                userKeys: UserKeyStore(pool: pool),
                ownAccount: OwnAccountQueries(pool: pool),
                lockouts: IdentityLockoutQueries(pool: pool),
                signinHistory: SigninHistoryQueries(pool: pool),
                database: database
            )
        }
    }
}

/// Builds the events of one user's life for the conformance suite, each on its catalogue stream.
struct Person {
    let userID = UUID()
    let provider: String

    init(provider: String = "apple") { self.provider = provider }

    var userStream: StreamName { StreamName(category: "user", id: self.userID.lowercased) }

    static func sessionStream(_ sessionID: UUID) -> StreamName {
        StreamName(category: "session", id: sessionID.lowercased)
    }

    /// `user.registered` with the first identity.
    func registered(subjectHash: String, at time: Timestamp) throws -> EventEnvelope {
        try EventEnvelope(
            UserRegistered(provider: self.provider, subjectHash: subjectHash),
            stream: self.userStream,
            occurredAt: time,
            provider: self.provider,
            userID: self.userID
        )
    }

    /// `identity.linked` for another provider's identity.
    func linked(provider: String, subjectHash: String, at time: Timestamp) throws -> EventEnvelope {
        try EventEnvelope(
            IdentityLinked(provider: provider, subjectHash: subjectHash),
            stream: self.userStream,
            occurredAt: time,
            provider: provider,
            userID: self.userID
        )
    }

    /// `identity.unlinked`.
    func unlinked(provider: String, subjectHash: String, at time: Timestamp) throws -> EventEnvelope {
        try EventEnvelope(
            IdentityUnlinked(provider: provider, subjectHash: subjectHash),
            stream: self.userStream,
            occurredAt: time,
            provider: provider,
            userID: self.userID
        )
    }

    /// `account.deleted`.
    func deleted(at time: Timestamp) throws -> EventEnvelope {
        try EventEnvelope(AccountDeleted(), stream: self.userStream, occurredAt: time, userID: self.userID)
    }

    /// `provider.consent_revoked` for `provider`.
    func consentRevoked(provider: String, at time: Timestamp) throws -> EventEnvelope {
        try EventEnvelope(
            ProviderConsentRevoked(source: .appleNotification),
            stream: self.userStream,
            occurredAt: time,
            provider: provider,
            userID: self.userID
        )
    }

    /// `signin.succeeded` starting `session`.
    func signedIn(
        _ session: UUID,
        provider: String? = nil,
        rememberMe: Bool = true,
        sighting: SigninSighting? = nil,
        at time: Timestamp
    ) throws -> EventEnvelope {
        try EventEnvelope(
            SigninSucceeded(
                method: "id_token",
                subjectHash: hashHex("subject"),
                isNewUser: false,
                rememberMe: rememberMe,
                sighting: sighting
            ),
            stream: Self.sessionStream(session),
            occurredAt: time,
            provider: provider ?? self.provider,
            userID: self.userID,
            sessionID: session,
            clientID: "com.example.app"
        )
    }

    /// `token.issued` with the first refresh token of `family`.
    func issued(_ token: IssuedToken, at time: Timestamp) throws -> EventEnvelope {
        try EventEnvelope(
            TokenIssued(
                accessTokenID: UUID(),
                accessTokenExpiresAt: time.adding(seconds: 900),
                refreshTokenID: token.tokenID,
                refreshTokenHash: Hex.encode(token.hash),
                familyID: token.familyID,
                refreshTokenExpiresAt: token.expiresAt
            ),
            stream: Self.sessionStream(token.sessionID),
            occurredAt: time,
            provider: self.provider,
            userID: self.userID,
            sessionID: token.sessionID
        )
    }

    /// `token.refreshed` rotating `old` into `new`.
    func refreshed(_ old: IssuedToken, into new: IssuedToken, at time: Timestamp) throws -> EventEnvelope {
        try EventEnvelope(
            TokenRefreshed(
                oldTokenID: old.tokenID,
                newTokenID: new.tokenID,
                newTokenHash: Hex.encode(new.hash),
                familyID: new.familyID,
                refreshTokenExpiresAt: new.expiresAt,
                accessTokenID: UUID(),
                accessTokenExpiresAt: time.adding(seconds: 900)
            ),
            stream: Self.sessionStream(old.sessionID),
            occurredAt: time,
            provider: self.provider,
            userID: self.userID,
            sessionID: old.sessionID
        )
    }

    /// `token.reuse_detected` for a rotated token.
    func reused(_ token: IssuedToken, at time: Timestamp) throws -> EventEnvelope {
        try EventEnvelope(
            TokenReuseDetected(tokenID: token.tokenID, familyID: token.familyID),
            stream: Self.sessionStream(token.sessionID),
            occurredAt: time,
            reason: "refresh_token_reused",
            provider: self.provider,
            userID: self.userID,
            sessionID: token.sessionID
        )
    }

    /// `token.revoked` (RFC 7009), ending the family (and the session) when `endingFamily`.
    func revoked(_ token: IssuedToken, endingFamily: Bool, at time: Timestamp) throws -> EventEnvelope {
        try EventEnvelope(
            TokenRevoked(
                tokenID: token.tokenID,
                reason: "client_request",
                actor: "client:com.example.app",
                familyID: endingFamily ? token.familyID : nil
            ),
            stream: Self.sessionStream(token.sessionID),
            occurredAt: time,
            provider: self.provider,
            userID: self.userID,
            sessionID: token.sessionID
        )
    }

    /// An event on `session`'s stream, such as `session.logged_out`, `session.expired` or `session.reauthenticated`.
    func inSession(_ session: UUID, with payload: some EventPayload, at time: Timestamp) throws -> EventEnvelope {
        try EventEnvelope(
            payload,
            stream: Self.sessionStream(session),
            occurredAt: time,
            provider: self.provider,
            userID: self.userID,
            sessionID: session
        )
    }
}

/// A refresh token as the suite issues it.
struct IssuedToken {
    let sessionID: UUID
    let familyID: UUID
    let tokenID = UUID()
    let hash = SHA256Like.random()
    let expiresAt: Timestamp

    init(session: UUID, family: UUID = UUID(), expiresAt: Timestamp) {
        self.sessionID = session
        self.familyID = family
        self.expiresAt = expiresAt
    }

    /// The next token of the same family.
    func next(expiresAt: Timestamp) -> IssuedToken {
        IssuedToken(session: self.sessionID, family: self.familyID, expiresAt: expiresAt)
    }
}

/// Random 32-byte values standing in for SHA-256 hashes.
enum SHA256Like {
    static func random() -> [UInt8] { (0..<32).map { _ in UInt8.random(in: 0...255) } }
}

/// A 64-digit lowercase hex value derived from `seed`, standing in for a keyed subject hash.
func hashHex(_ seed: String) -> String {
    let bytes = Array(seed.utf8)
    return Hex.encode((0..<32).map { index in bytes.isEmpty ? 0 : bytes[index % bytes.count] &+ UInt8(index) })
}

/// A fixed instant (microsecond precision, as PostgreSQL keeps it) plus `seconds`.
func instant(_ seconds: Int64) -> Timestamp {
    Timestamp(microsecondsSinceEpoch: 1_780_000_000_000_000 + seconds * 1_000_000)
}
