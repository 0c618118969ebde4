public import Foundation

/// One row sealed under the data key: a user's wrapped personal-data key, or an identity's sealed provider
/// credential.
public struct SealedRow: Sendable, Equatable {
    /// Which row it is.
    public enum Kind: Sendable, Equatable {
        /// A user's wrapped key (`authlog.user_keys`).
        case userKey(UUID)
        /// An identity's provider credential (`authlog.provider_credentials`).
        case credential(provider: String, subjectHash: String)
    }

    /// Which row it is.
    public var kind: Kind
    /// The sealed bytes (AES-256-GCM: nonce, ciphertext, tag).
    public var sealed: [UInt8]

    /// A row of `kind` holding `sealed`.
    public init(kind: Kind, sealed: [UInt8]) {
        self.kind = kind
        self.sealed = sealed
    }
}

/// The rows sealed under the data key, read page by page and replaced one at a time when the data key is
/// rotated (`authlog keys rewrap`). Nothing in the event log is sealed under the data key, so no event changes.
public protocol SealedRowTables: Sendable {
    /// Up to `limit` wrapped user keys after the user `after` (nil: from the first), in user order.
    func userKeys(after: UUID?, limit: Int) async throws -> [SealedRow]
    /// Up to `limit` provider credentials after `after` (nil: from the first), in (provider, subject) order.
    func credentials(after: (provider: String, subjectHash: String)?, limit: Int) async throws -> [SealedRow]
    /// Replaces the row's sealed bytes with `sealed` if they are still `row.sealed`; false when the row changed
    /// or went meanwhile (a deletion shredded it, or a sign-in replaced the credential).
    func replace(_ row: SealedRow, with sealed: [UInt8]) async throws -> Bool
}
