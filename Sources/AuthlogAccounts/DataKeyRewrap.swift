public import AuthlogCore
import AuthlogCrypto
import Foundation

/// Seals every row a previous data key sealed again under the current one: each user's wrapped personal-data
/// key and each provider credential. The personal data in events is sealed with the users' own keys, which do
/// not change, so no event is rewritten and the log's hashes stay as they are. Safe to run while servers run
/// (a row changed meanwhile is left to them) and to run again (rows under the current key are counted, not
/// touched).
public struct DataKeyRewrap: Sendable {
    /// What one run did.
    public struct Tally: Sendable, Equatable {
        /// User keys sealed again under the current data key.
        public var userKeys = 0
        /// Provider credentials sealed again under the current data key.
        public var credentials = 0
        /// Rows already under the current data key.
        public var current = 0
        /// Rows that changed or went while this run read them (a deletion, a new sign-in): left to the server.
        public var changed = 0
        /// Rows that open with no configured key: left as they are.
        public var unopenable = 0

        /// An empty tally.
        public init() {}
    }

    private let dataKey: [UInt8]
    private let previousKeys: [[UInt8]]
    private let pageSize: Int

    /// A rewrap under `dataKey` of what `previousKeys` sealed, reading `pageSize` rows per query.
    public init(dataKey: [UInt8], previousKeys: [[UInt8]], pageSize: Int = 500) {
        self.dataKey = dataKey
        self.previousKeys = previousKeys
        self.pageSize = max(1, pageSize)
    }

    /// Rewraps every row of `tables`.
    /// - Throws: ``StoreError`` from the tables; ``CryptoError`` when OpenSSL cannot seal.
    public func run(on tables: any SealedRowTables) async throws -> Tally {
        var tally = Tally()
        var lastUser: UUID?
        while true {
            let page = try await tables.userKeys(after: lastUser, limit: self.pageSize)
            for row in page { try await self.rewrap(row, in: tables, tally: &tally) }
            guard page.count == self.pageSize, case .userKey(let last)? = page.last?.kind else { break }
            lastUser = last
        }
        var lastCredential: (provider: String, subjectHash: String)?
        while true {
            let page = try await tables.credentials(after: lastCredential, limit: self.pageSize)
            for row in page { try await self.rewrap(row, in: tables, tally: &tally) }
            guard page.count == self.pageSize, case .credential(let provider, let subject)? = page.last?.kind else {
                break
            }
            lastCredential = (provider, subject)
        }
        return tally
    }

    private func rewrap(_ row: SealedRow, in tables: any SealedRowTables, tally: inout Tally) async throws {
        let context = Self.context(of: row.kind)
        guard let box = try? AESGCM.SealedBox(combined: row.sealed) else {
            tally.unopenable += 1
            return
        }
        if DataKeyOpening.open(box, keys: [self.dataKey], context: context) != nil {
            tally.current += 1
            return
        }
        guard let plaintext = DataKeyOpening.open(box, keys: self.previousKeys, context: context) else {
            tally.unopenable += 1
            return
        }
        let sealed = try AESGCM.seal(plaintext, key: self.dataKey, authenticating: context).combined
        guard try await tables.replace(row, with: sealed) else {
            tally.changed += 1
            return
        }
        switch row.kind {
        case .userKey: tally.userKeys += 1
        case .credential: tally.credentials += 1
        }
    }

    /// What the row's sealed bytes are bound to, as the vault and the identity registry seal them.
    private static func context(of kind: SealedRow.Kind) -> [UInt8] {
        switch kind {
        case .userKey(let userID): PersonalDataVault.wrapContext(userID)
        case .credential(let provider, let subjectHash):
            IdentityRegistry.credentialContext(provider: provider, subjectHash: subjectHash)
        }
    }
}
