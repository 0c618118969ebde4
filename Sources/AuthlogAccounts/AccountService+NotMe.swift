import AuthlogCore
public import Foundation

extension AccountService {
    /// `POST /v1/me/activity/{event_id}/not-me`: the user says an entry of their activity was not them. Every
    /// active session of theirs ends (`session.revoked`, reason `not_me`, actor `user`; the caller's own
    /// included: whoever holds a stolen token is signed out with it, and the user signs in again) and the report
    /// is recorded (`account.not_me_reported`, naming the entry and the sessions ended), in one command.
    /// Returns the sessions ended.
    /// - Throws: ``ServiceError`` 401 for a bad bearer; 404 `not_found` (recorded as `account.action_refused`,
    ///   action `report_not_me`) when `eventID` is malformed, unknown, another user's or not an activity entry,
    ///   the same answer for each; 409 when the sessions kept changing; 503 when the database is down.
    public func reportNotMe(
        bearer: String,
        eventID text: String,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> [UUID] {
        let (_, session) = try await self.tokens.authenticate(bearer: bearer)
        var entry: ActivityRecord?
        if let eventID = UUID(canonical: text) {
            entry = try await self.dependencies.storeCall {
                try await self.dependencies.ownAccount.activityEntry(
                    eventID,
                    of: session.userID,
                    types: EventType.userActivity
                )
            }
        }
        guard let entry else {
            throw try await self.refuse(
                .reportNotMe,
                reason: AccountRefusalReason.notFound.rawValue,
                answer: ServiceError(.notFound, "not_found", "Your activity has no entry with this id."),
                session: session,
                provider: nil,
                metadata: metadata
            )
        }
        let disowned = try await self.disownedDevice(of: entry, userID: session.userID)
        return try await SessionEnder(dependencies: self.dependencies).endSessionsListing(
            of: session.userID,
            provider: nil,
            reason: .notMe,
            actor: "user",
            extra: { ended throws(ServiceError) in
                [
                    try self.dependencies.event(
                        metadata,
                        stream: .user(session.userID),
                        userID: session.userID,
                        sessionID: session.sessionID,
                        at: .now(),
                        data: AccountNotMeReported(
                            reportedEventID: entry.eventID.lowercased,
                            reportedType: entry.type.rawValue,
                            sessionsEnded: ended.map(\.lowercased),
                            disownedDeviceKeys: disowned.map { [$0] }
                        )
                    )
                ]
            },
            metadata: metadata
        )
    }

    /// The device of the sign-in `entry` names, which the report disowns: the entry's own when it is a
    /// `signin.succeeded`, the judged sign-in's when it is a `signin.flagged`; nil for other entries, and for a
    /// sign-in that recorded no device.
    /// - Throws: ``ServiceError`` 503 when the database is down.
    private func disownedDevice(of entry: ActivityRecord, userID: UUID) async throws(ServiceError) -> String? {
        let signin: UUID?
        switch entry.type {
        case .signinSucceeded: signin = entry.eventID
        case .signinFlagged: signin = entry.alert?["judged_event_id"]?.stringValue.flatMap { UUID(canonical: $0) }
        default: signin = nil
        }
        guard let signin else { return nil }
        return try await self.dependencies.storeCall {
            try await self.dependencies.signinHistory.deviceKey(ofSignin: signin, of: userID)
        }
    }
}
