public import AuthlogCore

/// ``SessionExpiryReads`` over the in-memory projections, with the filter, order and limit of AuthlogStore's
/// `SessionExpiryQueries`.
public struct InMemorySessionExpiryReads: SessionExpiryReads {
    let storage: InMemoryStorage

    /// At most `limit` (1…10 000) active sessions past a lifetime at `now`, least recently seen first.
    public func due(at now: Timestamp, lifetimes: SessionLifetimes, limit: Int) async throws -> [ExpiringSession] {
        let rows = self.storage.withState { state in
            state.projections.sessions.values
                .filter { session in
                    let limits = lifetimes.limits(for: session.kind)
                    return session.state == .active
                        && (session.startedAt <= now.adding(seconds: -limits.absolute)
                            || session.lastSeenAt <= now.adding(seconds: -limits.idle))
                }
                .sorted { ($0.lastSeenAt, $0.sessionID.uuidString) < ($1.lastSeenAt, $1.sessionID.uuidString) }
                .prefix(max(1, min(limit, 10_000)))
                .map { session in
                    VersionedSession(
                        session: InMemorySessionReads.record(session, in: state.projections),
                        version: InMemorySessionReads.version(of: session.sessionID, in: state.log)
                    )
                }
        }
        return rows.compactMap { row in
            guard
                let passed = lifetimes.passedLimit(
                    kind: row.session.kind,
                    startedAt: row.session.startedAt,
                    lastSeenAt: row.session.lastSeenAt,
                    now: now
                )
            else { return nil }
            return ExpiringSession(session: row.session, version: row.version, limit: passed)
        }
    }
}
