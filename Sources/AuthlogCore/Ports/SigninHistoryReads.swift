public import Foundation

/// Reads of a user's recent successful sign-ins: the history sign-in alerts judge against, read from the log
/// itself (an index over `signin.succeeded` by user), so there is no second copy to keep in step, `authlog
/// rebuild` has nothing to rebuild, and account deletion shreds the sealed places with the user's key.
public protocol SigninHistoryReads: Sendable {
    /// The history of the newest `limit` `signin.succeeded` of `userID` (``RecentSignins/summing(_:devices:areas:wrappedUserKey:)``
    /// says what it holds: at most `devices` devices and `areas` countries and regions), the newest sealed place
    /// among them, and the user's wrapped key, in one read.
    /// - Throws: ``StoreError``.
    func recentSignins(of userID: UUID, limit: Int, devices: Int, areas: Int) async throws -> RecentSignins
    /// The identity rows of `provider` whose subject hash is one of `subjectHashes` (as
    /// ``SessionReads/identities(provider:subjectHashes:)``), each linked to an active user with that user's
    /// history (as ``recentSignins(of:limit:devices:areas:)``), in one read: what a sign-in looks up first.
    /// - Throws: ``StoreError``.
    func identitiesWithHistory(
        provider: String,
        subjectHashes: [String],
        limit: Int,
        devices: Int,
        areas: Int
    ) async throws -> [String: (identity: IdentityRecord, history: RecentSignins?)]
    /// The device key the `signin.succeeded` `eventID` of `userID` recorded (``SigninSighting/deviceKey``); nil
    /// when there is no such sign-in of that user or it recorded none: what "not me" disowns.
    /// - Throws: ``StoreError``.
    func deviceKey(ofSignin eventID: UUID, of userID: UUID) async throws -> String?
}
