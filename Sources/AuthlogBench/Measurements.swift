import AuthlogCore
import AuthlogStore
import Foundation

/// The three measurements; each returns events per second.
enum Measurements {
    /// `appenders` tasks append one user action per command through one EventStore (the sequencer).
    static func sequencer(
        _ workload: Workload,
        appenders: Int,
        for duration: Duration,
        in database: BenchDatabase
    ) async throws -> Double {
        let batches = Ticket()
        let batchedEvents = Ticket()
        let store = EventStore(
            pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 2),
            batchObserver: { events in
                _ = batches.take()
                batchedEvents.add(events)
            }
        )
        let ticket = Ticket()
        defer {
            let count = max(batches.current, 1)
            say(
                "  \(appenders) appenders: \(batches.current) batches, \(batchedEvents.current / count) events per batch on average"
            )
        }
        return try await self.timed(workers: appenders, for: duration) { deadline in
            var events = 0
            while ContinuousClock.now < deadline {
                let index = ticket.take()
                guard index < workload.actions.count else { break }
                events += try await store.append(AppendCommand(events: workload.actions[index])).events.count
            }
            return events
        }
    }

    /// Baseline (a) with `rowsPerInsert` 1: each connection inserts one event per transaction, as Keycloak
    /// and Supabase Auth write their audit rows. Baseline (b) with 100: raw multi-row INSERTs of the same rows,
    /// no chain, no projections, the database's own limit. Both write a table like `authlog.events` (same
    /// columns and indexes) with an identity key.
    static func plainInserts(
        _ workload: Workload,
        connections: Int,
        rowsPerInsert: Int,
        for duration: Duration,
        in database: BenchDatabase
    ) async throws -> Double {
        try await self.createBaselineTable(in: database)
        let events = workload.events
        let ticket = Ticket()
        return try await self.timed(workers: connections, for: duration) { deadline in
            let connection = try await Connection.connect(database.conninfo)
            var inserted = 0
            while ContinuousClock.now < deadline {
                let start = ticket.take() * rowsPerInsert
                guard start + rowsPerInsert <= events.count else { break }
                try await connection.query(self.insert(Array(events[start..<start + rowsPerInsert])))
                inserted += rowsPerInsert
            }
            return inserted
        }
    }

    private static func createBaselineTable(in database: BenchDatabase) async throws {
        try await Connection.connect(database.conninfo).execute(
            """
            CREATE TABLE public.audit_rows (LIKE authlog.events INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
            ALTER TABLE public.audit_rows ALTER COLUMN position ADD GENERATED ALWAYS AS IDENTITY;
            ALTER TABLE public.audit_rows ADD PRIMARY KEY (position);
            CREATE UNIQUE INDEX ON public.audit_rows (event_id);
            CREATE INDEX ON public.audit_rows (type, occurred_at) INCLUDE (provider, outcome, user_id);
            CREATE INDEX ON public.audit_rows (user_id, position) WHERE user_id IS NOT NULL
            """
        )
    }

    private static let zeroHash = ByteaValue([UInt8](repeating: 0, count: 32))

    private static func insert(_ events: [EventEnvelope]) -> SQLQuery {
        var query = SQLQuery(
            unsafeSQL: """
                INSERT INTO public.audit_rows (event_id, stream, stream_version, type, occurred_at, recorded_at, outcome,
                    reason, provider, user_id, session_id, client_id, ip, user_agent, request_id, data, schema_version,
                    prev_hash, hash) VALUES
                """
        )
        let now = Timestamp.now()
        for (index, event) in events.enumerated() {
            let values = [
                query.bind(event.eventID), query.bind(event.stream.rawValue), query.bind(Int32(1)),
                query.bind(event.type.rawValue), query.bind(event.occurredAt), query.bind(now),
                query.bind(event.outcome.rawValue), query.bind(event.reason), query.bind(event.provider),
                query.bind(event.userID), query.bind(event.sessionID), query.bind(event.clientID), query.bind(event.ip),
                query.bind(event.userAgent), query.bind(event.requestID), query.bind(event.data),
                query.bind(event.schemaVersion), query.bind(self.zeroHash), query.bind(self.zeroHash),
            ]
            query.append(unescaped: (index == 0 ? "(" : ",(") + values.joined(separator: ",") + ")")
        }
        return query
    }

    /// Runs `workers` copies of `body` until the deadline and returns the events they wrote per second.
    private static func timed(
        workers: Int,
        for duration: Duration,
        _ body: @escaping @Sendable (ContinuousClock.Instant) async throws -> Int
    ) async throws -> Double {
        let start = ContinuousClock.now
        let deadline = start + duration
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<workers { group.addTask { try await body(deadline) } }
            return try await group.reduce(0, +)
        }
        let seconds = (ContinuousClock.now - start).inSeconds
        return Double(total) / seconds
    }
}
