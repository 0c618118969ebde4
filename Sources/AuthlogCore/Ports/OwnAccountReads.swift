public import Foundation

/// What a signed-in user may read about their own account (`GET /v1/me/sessions`, `GET /v1/me/activity`):
/// their active sessions with where each began, and their own events, newest first.
public protocol OwnAccountReads: Sendable {
    /// The user's active sessions, newest first (then by session id), each with the address and user agent
    /// of the sign-in that started it and when its refresh token was last rotated.
    func activeSessionDetails(of userID: UUID) async throws -> [SessionDetail]
    /// Up to `limit` events naming the user whose type is one of `types`, newest first by
    /// (`occurred_at`, `event_id`); when `before` is given, only those that order strictly before it (the
    /// page after a cursor).
    func activity(
        of userID: UUID,
        types: Set<EventType>,
        before: ActivityPosition?,
        limit: Int
    ) async throws -> [ActivityRecord]
    /// The user's event with this id when its type is one of `types`; nil for another user's, another type's
    /// or an unknown id.
    func activityEntry(_ eventID: UUID, of userID: UUID, types: Set<EventType>) async throws -> ActivityRecord?
}
