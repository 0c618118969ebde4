public import AuthlogCore

/// ``ProviderRevocationQueue`` in memory, with the semantics of AuthlogStore's `RevocationQueue`: only items
/// of users the in-memory `users` projection has as deleted are claimed, and a claim moves the item's next
/// attempt past the lease.
public struct InMemoryProviderRevocationQueue: ProviderRevocationQueue {
    let storage: InMemoryStorage

    /// Adds items, held until `dueAt`; an item already queued (in any state) is kept as it is.
    public func enqueue(_ items: [ProviderRevocationItem], dueAt: Timestamp, at now: Timestamp) async throws {
        self.storage.withState { state in
            for item in items {
                let key = Self.key(of: item)
                guard state.tables.revocations[key] == nil else { continue }
                var queued = item
                queued.attempts = 0
                state.tables.revocations[key] = .init(
                    item: queued,
                    state: .pending,
                    nextAttemptAt: dueAt,
                    createdAt: now
                )
                state.tables.revocationOrder.append(key)
            }
        }
    }

    /// Claims up to `limit` (1…1000) due items of deleted users, earliest due first, leasing each for
    /// `leaseSeconds`.
    public func claimDue(limit: Int, leaseSeconds: Int64, at now: Timestamp) async throws -> [ProviderRevocationItem] {
        self.storage.withState { state in
            let due = state.tables.revocationOrder
                .compactMap { key in state.tables.revocations[key].map { (key: key, row: $0) } }
                .filter { entry in
                    entry.row.state == .pending && entry.row.nextAttemptAt <= now
                        && state.projections.users[entry.key.userID]?.isDeleted == true
                }
                .sorted { $0.row.nextAttemptAt < $1.row.nextAttemptAt }
                .prefix(max(1, min(limit, 1000)))
            for entry in due { state.tables.revocations[entry.key]?.nextAttemptAt = now.adding(seconds: leaseSeconds) }
            return due.map(\.row.item)
        }
    }

    /// Records the outcome of an attempt on a pending item: `revoked` ends it as revoked, `abandoned` and
    /// `none` as abandoned (both empty its sealed credential), `queued` makes it due again at `nextAttemptAt`.
    public func finish(
        _ item: ProviderRevocationItem,
        result: ProviderRevocationResult,
        detail: String?,
        nextAttemptAt: Timestamp
    ) async throws {
        self.storage.withState { state in
            let key = Self.key(of: item)
            guard var row = state.tables.revocations[key], row.state == .pending else { return }
            let ended = result != .queued
            row.state = ended ? (result == .revoked ? .revoked : .abandoned) : .pending
            row.item.attempts += 1
            row.nextAttemptAt = nextAttemptAt
            row.lastDetail = detail
            if ended { row.item.sealedToken = [] }
            state.tables.revocations[key] = row
        }
    }

    private static func key(of item: ProviderRevocationItem) -> InMemoryStateTables.RevocationKey {
        .init(userID: item.userID, provider: item.provider, subjectHash: item.subjectHash)
    }
}
