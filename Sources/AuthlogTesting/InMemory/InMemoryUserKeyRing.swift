public import AuthlogCore
public import Foundation

/// ``UserKeyRing`` in memory, with the semantics of AuthlogStore's `UserKeyStore`.
public struct InMemoryUserKeyRing: UserKeyRing {
    let storage: InMemoryStorage

    /// Stores `wrapped` as the user's key unless one is stored already, and returns the stored one.
    public func keepFirst(_ wrapped: [UInt8], for userID: UUID, at now: Timestamp) async throws -> [UInt8] {
        self.storage.withState { state in
            if let stored = state.tables.userKeys[userID] { return stored }
            state.tables.userKeys[userID] = wrapped
            return wrapped
        }
    }

    /// The user's wrapped key, or `nil` once destroyed.
    public func wrappedKey(for userID: UUID) async throws -> [UInt8]? {
        self.storage.withState { $0.tables.userKeys[userID] }
    }

    /// Destroys the user's key.
    public func destroy(for userID: UUID) async throws {
        self.storage.withState { state in state.tables.userKeys[userID] = nil }
    }
}
