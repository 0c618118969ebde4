public import Foundation

// The state the application rules (AuthlogAccounts) read and keep besides the event log, one small port per
// table. Each is exactly what the rules call: PostgreSQL implements them in AuthlogStore, memory in
// AuthlogTesting. Every method may throw the store's own error when it cannot be reached or fails.

/// Request-time reads of the projections.
public protocol SessionReads: Sendable {
    /// The identity rows of `provider` whose subject hash is one of `subjectHashes` (the generations of one
    /// subject), keyed by subject hash.
    func identities(provider: String, subjectHashes: [String]) async throws -> [String: IdentityRecord]
    /// The linked (not released) identities of a user, oldest first.
    func identities(of userID: UUID) async throws -> [IdentityRecord]
    /// The refresh token whose SHA-256 is `hash`, if any; `withSessionSignin` also reads its session's sign-in
    /// (``RefreshTokenRecord/sessionSignin``) in the same statement, for sign-in alerts.
    func refreshToken(hash: [UInt8], withSessionSignin: Bool) async throws -> RefreshTokenRecord?
    /// One session, if it exists.
    func session(_ sessionID: UUID) async throws -> SessionRecord?
    /// The active sessions of a user, or of a user with one provider, oldest first, with each session
    /// stream's version.
    func activeSessions(of userID: UUID, provider: String?) async throws -> [(session: SessionRecord, version: Int32)]
    /// Whether a user with this id was ever registered (deleted users included).
    func userExists(_ userID: UUID) async throws -> Bool
    /// Whether the store answers.
    func isReachable() async -> Bool
}

extension SessionReads {
    /// The refresh token whose SHA-256 is `hash`, if any, without its session's sign-in.
    public func refreshToken(hash: [UInt8]) async throws -> RefreshTokenRecord? {
        try await self.refreshToken(hash: hash, withSessionSignin: false)
    }
}

/// The active sessions past a lifetime, for the sweeper.
public protocol SessionExpiryReads: Sendable {
    /// At most `limit` active sessions past a lifetime at `now`, oldest first.
    func due(at now: Timestamp, lifetimes: SessionLifetimes, limit: Int) async throws -> [ExpiringSession]
}

/// Single-use nonces, kept as SHA-256 hashes only.
public protocol NonceLedger: Sendable {
    /// Records a nonce authlog issued.
    func recordIssued(hash: [UInt8], at issuedAt: Timestamp, expiresAt: Timestamp) async throws
    /// Consumes the nonce with SHA-256 `hash` for `provider` at `now`, atomically: a pair consumed before is a
    /// replay, an issued nonce past its expiry is expired, anything else is accepted once.
    func consume(provider: String, hash: [UInt8], at now: Timestamp) async throws -> NonceConsumption
}

/// Provider credentials, sealed, kept for revocation at account deletion.
public protocol ProviderCredentialVault: Sendable {
    /// Keeps (or replaces) the sealed credential of an identity.
    func save(provider: String, subjectHash: String, sealed: [UInt8], at now: Timestamp) async throws
    /// The sealed credential of an identity, if one is kept.
    func sealed(provider: String, subjectHash: String) async throws -> [UInt8]?
    /// Drops the credential of an identity.
    func forget(provider: String, subjectHash: String) async throws
}

/// Verified emails as keyed hashes, for the same-email policy.
public protocol EmailOwnership: Sendable {
    /// Records that `provider` vouched for the email with keyed hash `emailHash` for `userID`.
    func record(emailHash: String, userID: UUID, provider: String, authoritative: Bool, at now: Timestamp) async throws
    /// The existing (not deleted) users with this email, and the providers that vouched for it.
    func owners(of emailHash: String) async throws -> [EmailOwner]
    /// Forgets the emails one provider vouched for, for one user (the identity was unlinked).
    func forget(userID: UUID, provider: String) async throws
    /// Forgets every email of a user (the account was deleted).
    func forgetAll(userID: UUID) async throws
}

/// Grants of deleted users still to be revoked at their providers; an item is claimed by one process at a
/// time, for a lease.
public protocol ProviderRevocationQueue: Sendable {
    /// Adds items, held (not due) until `dueAt`; an item already queued is kept as it is.
    func enqueue(_ items: [ProviderRevocationItem], dueAt: Timestamp, at now: Timestamp) async throws
    /// Claims up to `limit` due items, leasing each for `leaseSeconds`, so that no two processes make the
    /// same attempt.
    func claimDue(limit: Int, leaseSeconds: Int64, at now: Timestamp) async throws -> [ProviderRevocationItem]
    /// Records the outcome of an attempt: `revoked` and `abandoned` end the item (and drop its credential);
    /// `queued` makes it due again at `nextAttemptAt`.
    func finish(
        _ item: ProviderRevocationItem,
        result: ProviderRevocationResult,
        detail: String?,
        nextAttemptAt: Timestamp
    ) async throws
}

/// Provider notices already acted on, so that a replayed notice changes nothing.
public protocol ProviderNoticeClaims: Sendable {
    /// Claims a notice id; `false` when it was claimed before (a replay).
    func claim(provider: String, noticeID: String, at now: Timestamp) async throws -> Bool
    /// Gives a claim back, when acting on the notice failed, so that the provider's retry is acted on.
    func release(provider: String, noticeID: String) async throws
}

/// Each user's wrapped personal-data key.
public protocol UserKeyRing: Sendable {
    /// Stores `wrapped` as the user's key unless one is stored already, and returns the stored one, so that
    /// two concurrent first sign-ins of one identity end up sealing with the same key.
    func keepFirst(_ wrapped: [UInt8], for userID: UUID, at now: Timestamp) async throws -> [UInt8]
    /// The user's wrapped key, if any.
    func wrappedKey(for userID: UUID) async throws -> [UInt8]?
    /// Destroys the user's key (crypto-shredding their personal data).
    func destroy(for userID: UUID) async throws
}
