import AuthlogCore
import Foundation

/// The state tables besides the projections (nonces, credentials, emails, revocations, notices, user keys)
/// in memory, keyed as their PostgreSQL primary keys are.
struct InMemoryStateTables: Sendable {
    struct ConsumedNonce: Hashable, Sendable {
        var provider: String
        var hash: [UInt8]
    }

    struct IdentityKey: Hashable, Sendable {
        var provider: String
        var subjectHash: String
    }

    struct Email: Sendable {
        var emailHash: String
        var userID: UUID
        var provider: String
        var authoritative: Bool
        var recordedAt: Timestamp
    }

    struct RevocationKey: Hashable, Sendable {
        var userID: UUID
        var provider: String
        var subjectHash: String
    }

    enum RevocationState: Sendable {
        case pending
        case revoked
        case abandoned
    }

    struct Revocation: Sendable {
        var item: ProviderRevocationItem
        var state: RevocationState
        var nextAttemptAt: Timestamp
        var createdAt: Timestamp
        var lastDetail: String?
    }

    struct NoticeKey: Hashable, Sendable {
        var provider: String
        var noticeID: String
    }

    /// `issued_nonces`: expiry by nonce hash.
    var issuedNonces: [[UInt8]: Timestamp] = [:]
    /// `consumed_nonces`: when each (provider, hash) pair was consumed.
    var consumedNonces: [ConsumedNonce: Timestamp] = [:]
    /// `dpop_proofs`: the end of each accepted proof's lifetime, by proof hash.
    var dpopProofs: [[UInt8]: Timestamp] = [:]
    /// `provider_credentials`: the sealed credential by identity.
    var credentials: [IdentityKey: [UInt8]] = [:]
    /// `user_emails`, in insertion order; (email hash, user, provider) is unique.
    var emails: [Email] = []
    /// `provider_revocations`, by key, with the keys in insertion order.
    var revocations: [RevocationKey: Revocation] = [:]
    var revocationOrder: [RevocationKey] = []
    /// `provider_notices`.
    var notices: [NoticeKey: Timestamp] = [:]
    /// `user_keys`: the wrapped key by user.
    var userKeys: [UUID: [UInt8]] = [:]
}

/// A write the PostgreSQL schema refuses (a duplicate key without `ON CONFLICT`, a hash of the wrong length),
/// refused in memory too.
public struct InMemoryConstraintViolation: Error, Sendable, CustomStringConvertible {
    /// The table and the constraint.
    public var message: String

    /// Creates the error.
    public init(_ message: String) { self.message = message }

    public var description: String { "constraint violation: \(self.message)" }
}
