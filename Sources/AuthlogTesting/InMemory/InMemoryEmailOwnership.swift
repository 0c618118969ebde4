public import AuthlogCore
public import Foundation

/// ``EmailOwnership`` in memory, with the semantics of AuthlogStore's `UserEmailStore`; owners are read
/// against the in-memory `users` projection.
public struct InMemoryEmailOwnership: EmailOwnership {
    let storage: InMemoryStorage

    /// Records that `provider` vouched for the email for `userID`; recording it again only updates
    /// `authoritative` (the first recording time stays).
    public func record(
        emailHash: String,
        userID: UUID,
        provider: String,
        authoritative: Bool,
        at now: Timestamp
    ) async throws {
        self.storage.withState { state in
            if let index = state.tables.emails.firstIndex(where: {
                $0.emailHash == emailHash && $0.userID == userID && $0.provider == provider
            }) {
                state.tables.emails[index].authoritative = authoritative
                return
            }
            state.tables.emails.append(
                .init(
                    emailHash: emailHash,
                    userID: userID,
                    provider: provider,
                    authoritative: authoritative,
                    recordedAt: now
                )
            )
        }
    }

    /// The existing (not deleted) users with this email and the providers that vouched for it, in the order
    /// they were recorded (then by provider).
    public func owners(of emailHash: String) async throws -> [EmailOwner] {
        self.storage.withState { state in
            state.tables.emails
                .filter { $0.emailHash == emailHash && state.projections.userIsActive($0.userID) }
                .sorted { ($0.recordedAt, $0.provider) < ($1.recordedAt, $1.provider) }
                .map { EmailOwner(userID: $0.userID, provider: $0.provider) }
        }
    }

    /// Forgets the emails one provider vouched for, for one user.
    public func forget(userID: UUID, provider: String) async throws {
        self.storage.withState { state in
            state.tables.emails.removeAll { $0.userID == userID && $0.provider == provider }
        }
    }

    /// Forgets every email of a user.
    public func forgetAll(userID: UUID) async throws {
        self.storage.withState { state in state.tables.emails.removeAll { $0.userID == userID } }
    }
}
