public import AuthlogCore
public import Foundation

/// ``OwnAccountReads`` over the in-memory log and projections, with the order and filters of AuthlogStore's
/// `OwnAccountQueries`.
public struct InMemoryOwnAccountReads: OwnAccountReads {
    let storage: InMemoryStorage

    /// The user's active sessions, newest first (then by session id), with their sign-in's address and user
    /// agent and their last rotation.
    public func activeSessionDetails(of userID: UUID) async throws -> [SessionDetail] {
        self.storage.withState { state in
            state.projections.sessions.values
                .filter { $0.userID == userID && $0.state == .active }
                .sorted { ($1.startedAt, $0.sessionID.lowercased) < ($0.startedAt, $1.sessionID.lowercased) }
                .map { session in
                    let stream = StreamName(category: "session", id: session.sessionID.lowercased).rawValue
                    let first = state.log.envelopes.first { $0.stream.rawValue == stream && $0.streamVersion == 1 }
                    let refreshed = state.projections.refreshTokens
                        .filter { $0.row.sessionID == session.sessionID && $0.row.parentID != nil }
                        .map(\.row.issuedAt).max()
                    return SessionDetail(
                        session: InMemorySessionReads.record(session, in: state.projections),
                        ip: first?.ip,
                        userAgent: first?.userAgent,
                        lastRefreshedAt: refreshed
                    )
                }
        }
    }

    /// Up to `limit` of the user's events of `types`, newest first by (`occurred_at`, event id), before
    /// `before`.
    public func activity(
        of userID: UUID,
        types: Set<EventType>,
        before: ActivityPosition?,
        limit: Int
    ) async throws -> [ActivityRecord] {
        self.storage.withState { state in
            // The in-memory log places an event at once: its offset + 1 is its position.
            state.log.envelopes.enumerated()
                .filter { $0.element.userID == userID && types.contains($0.element.type) }
                .map { Self.record($0.element, position: Int64($0.offset) + 1) }
                .filter { record in before.map { record.position < $0 } ?? true }
                .sorted { $1.position < $0.position }
                .prefix(max(limit, 0))
                .map { $0 }
        }
    }

    /// The user's event `eventID` when its type is one of `types`.
    public func activityEntry(_ eventID: UUID, of userID: UUID, types: Set<EventType>) async throws -> ActivityRecord? {
        self.storage.withState { state in
            state.log.envelopes.enumerated()
                .first {
                    $0.element.eventID == eventID && $0.element.userID == userID && types.contains($0.element.type)
                }
                .map { Self.record($0.element, position: Int64($0.offset) + 1) }
        }
    }

    private static func record(_ envelope: EventEnvelope, position: Int64) -> ActivityRecord {
        ActivityRecord(
            eventID: envelope.eventID,
            type: envelope.type,
            occurredAt: envelope.occurredAt,
            outcome: envelope.outcome,
            reason: envelope.reason,
            provider: envelope.provider,
            sessionID: envelope.sessionID,
            ip: envelope.ip,
            userAgent: envelope.userAgent,
            logPosition: position,
            alert: envelope.type == .signinFlagged ? envelope.data : nil
        )
    }
}
