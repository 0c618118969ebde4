public import Foundation

/// Reads of a user's recent successful sign-ins: the history sign-in alerts judge against, read from the log
/// itself (an index over `signin.succeeded` by user), so there is no second copy to keep in step, `authlog
/// rebuild` has nothing to rebuild, and account deletion shreds the sealed places with the user's key.
public protocol SigninHistoryReads: Sendable {
    /// The newest `limit` `signin.succeeded` of `userID`, newest first, and the user's wrapped key; only the
    /// newest sealed place among them is read (the others are nil).
    /// - Throws: ``StoreError``.
    func recentSignins(of userID: UUID, limit: Int) async throws -> RecentSignins
}
