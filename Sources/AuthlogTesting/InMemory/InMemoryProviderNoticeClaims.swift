public import AuthlogCore

/// ``ProviderNoticeClaims`` in memory, with the semantics of AuthlogStore's `ProviderNoticeStore`.
public struct InMemoryProviderNoticeClaims: ProviderNoticeClaims {
    let storage: InMemoryStorage

    /// Claims a notice id; `false` when it was claimed before (a replay).
    public func claim(provider: String, noticeID: String, at now: Timestamp) async throws -> Bool {
        self.storage.withState { state in
            let key = InMemoryStateTables.NoticeKey(provider: provider, noticeID: noticeID)
            guard state.tables.notices[key] == nil else { return false }
            state.tables.notices[key] = now
            return true
        }
    }

    /// Gives a claim back, so that the provider's retry is acted on.
    public func release(provider: String, noticeID: String) async throws {
        self.storage.withState { state in
            state.tables.notices[InMemoryStateTables.NoticeKey(provider: provider, noticeID: noticeID)] = nil
        }
    }
}
