import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation

/// The three measurements; each returns events per second.
enum Measurements {
    /// `appenders` tasks append one user action per command through one PostgresEventStore (parallel group-commit
    /// writers and the sealer); the rate counts events **sealed**: the clock stops when the last committed
    /// event has a position. Also prints the sealing delay (commit time to sealing time) p50 and p99, and
    /// returns the p99.
    static func writersAndSealer(
        _ workload: Workload,
        appenders: Int,
        for duration: Duration,
        in database: BenchDatabase,
        authenticator: EventAuthenticator? = nil
    ) async throws -> Sealing {
        let batches = Ticket()
        let batchedEvents = Ticket()
        let store = PostgresEventStore(
            pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 6),
            batchObserver: { events in
                _ = batches.take()
                batchedEvents.add(events)
            },
            authenticator: authenticator
        )
        let ticket = Ticket()
        defer {
            let count = max(batches.current, 1)
            say(
                "  \(appenders) appenders: \(batches.current) batches, \(batchedEvents.current / count) events per batch on average"
            )
        }
        let sealedBefore = try await self.sealedCount(in: database)
        let start = ContinuousClock.now
        _ = try await self.timed(workers: appenders, for: duration) { deadline in
            var events = 0
            while ContinuousClock.now < deadline {
                let index = ticket.take()
                guard index < workload.actions.count else { break }
                events += try await store.append(AppendCommand(events: workload.actions[index])).events.count
            }
            return events
        }
        try await store.sealPending()
        let seconds = (ContinuousClock.now - start).inSeconds
        let sealed = try await self.sealedCount(in: database) - sealedBefore
        let delays = try await Connection.connect(database.conninfo).query(
            """
            SELECT coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY d), 0),
                   coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY d), 0)
            FROM (SELECT extract(epoch FROM l.sealed_at - e.recorded_at) * 1000 AS d
                  FROM authlog.log_leaves l JOIN authlog.event_records e USING (event_id)
                  WHERE l.position > \(sealedBefore)) s
            """
        )
        let p50 = try delays.first?.decode(Double.self, at: 0) ?? 0
        let p99 = try delays.first?.decode(Double.self, at: 1) ?? 0
        say(String(format: "  %d appenders: sealing delay p50 %.1f ms, p99 %.1f ms", appenders, p50, p99))
        return Sealing(rate: Double(sealed) / seconds, delayP99Milliseconds: p99)
    }

    /// Events sealed per second, and the 99th percentile of the delay from commit to seal.
    struct Sealing {
        let rate: Double
        let delayP99Milliseconds: Double
    }

    private static func sealedCount(in database: BenchDatabase) async throws -> Int64 {
        let rows = try await Connection.connect(database.conninfo).query("SELECT size FROM authlog.log_head")
        return try rows.first?.decode(Int64.self, at: 0) ?? 0
    }

    /// The sealer alone: `count` committed events are queued with SQL, then one sealer seals them all.
    static func sealerAlone(count: Int, in database: BenchDatabase) async throws -> Double {
        try await Connection.connect(database.conninfo).execute(
            """
            INSERT INTO authlog.event_records (event_id, stream, stream_version, type, occurred_at, recorded_at,
                outcome, reason, provider, data, schema_version, digest, log_month)
            SELECT gen_random_uuid(), 'signin-backlog', n, 'signin.failed', now(), now(), 'failure', 'expired',
                   'backlog', '{"reason": "expired"}', 1, sha256(n::text::bytea), (SELECT month FROM authlog.log_epoch)
            FROM generate_series(1, \(unescaped: String(count))) AS n;
            INSERT INTO authlog.unsealed_events (event_id, digest)
            SELECT event_id, digest FROM authlog.event_records WHERE stream = 'signin-backlog' ORDER BY stream_version
            """
        )
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 1))
        let start = ContinuousClock.now
        try await store.sealPending()
        return Double(count) / (ContinuousClock.now - start).inSeconds
    }

    /// Baseline (a+): `appenders` connections, each writing one command per transaction with the same events
    /// and projection statements as the writers, without grouping, queue, sealer or tree.
    static func conventional(
        _ workload: Workload,
        appenders: Int,
        for duration: Duration,
        in database: BenchDatabase
    ) async throws -> Double {
        let ticket = Ticket()
        let conflicts = Ticket()
        defer {
            say("  \(appenders) appenders, baseline (a+): \(conflicts.current) commands lost to version conflicts")
        }
        return try await self.timed(workers: appenders, for: duration) { deadline in
            let connection = try await Connection.connect(database.conninfo)
            var events = 0
            while ContinuousClock.now < deadline {
                let index = ticket.take()
                guard index < workload.actions.count else { break }
                let command = AppendCommand(events: workload.actions[index])
                do {
                    events += try await ConventionalWriterBaseline.append(command, on: connection).events.count
                } catch is WrongExpectedVersion {
                    // Connections racing on one stream: the conventional design's cost; the command is lost.
                    conflicts.add(1)
                }
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
            CREATE TABLE public.audit_rows (LIKE authlog.event_records INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
            ALTER TABLE public.audit_rows DROP COLUMN log_month;
            ALTER TABLE public.audit_rows ADD COLUMN position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY;
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
                    digest) VALUES
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
                query.bind(event.schemaVersion), query.bind(self.zeroHash),
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
