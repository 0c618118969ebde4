public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// Each push-delivery sink's durable cursor and lease (`authlog.sink_cursors`): the last position the sink
/// acknowledged, and which process delivers to it until when. A process delivers only while it holds the
/// lease, and moves the cursor only from where it read it, so two processes never both deliver a batch past
/// the cursor. The row also keeps the sink's current run of failures, so that a failing episode is recorded
/// once whichever process delivers (``SinkRun``).
public struct SinkCursors: Sendable {
    private let pool: ConnectionPool
    /// This process, as the lease's owner.
    public let owner: UUID

    /// The cursors over `pool`, leased as `owner`.
    public init(pool: ConnectionPool, owner: UUID = UUID()) {
        self.pool = pool
        self.owner = owner
    }

    /// Takes or renews the lease of `sink` for `lease` when it is free, expired or ours; returns the cursor
    /// (the last position delivered), or nil when another process holds the lease.
    /// - Throws: ``StoreError``.
    public func claim(_ sink: String, for lease: Duration) async throws -> Int64? {
        let milliseconds = lease.components.seconds * 1000 + lease.components.attoseconds / 1_000_000_000_000_000
        return try await self.pool.withConnection { connection in
            try await connection.query(
                "INSERT INTO authlog.sink_cursors (sink) VALUES (\(sink)) ON CONFLICT (sink) DO NOTHING"
            )
            return try await connection.query(
                """
                UPDATE authlog.sink_cursors
                SET lease_owner = \(self.owner),
                    lease_until = clock_timestamp() + make_interval(secs => \(Double(milliseconds) / 1000))
                WHERE sink = \(sink)
                  AND (lease_owner IS NULL OR lease_owner = \(self.owner) OR lease_until < clock_timestamp())
                RETURNING delivered_through
                """
            ).first?.decode(Int64.self, at: 0)
        }
    }

    /// Moves the cursor of `sink` from `from` to `to` after the sink acknowledged the batch, if this process
    /// still holds the lease and the cursor is still at `from`; nil otherwise (the batch is then another
    /// process's to deliver again: at least once). Returns the sink's run of failures: ended (no failures),
    /// unless an `audit.sink_failing` recorded it, which then waits for ``endRun(_:since:)`` once
    /// `audit.sink_recovered` is recorded.
    /// - Throws: ``StoreError``.
    public func advance(_ sink: String, from: Int64, to: Int64) async throws -> SinkRun? {
        try await self.pool.withConnection { connection in
            try await connection.query(
                """
                UPDATE authlog.sink_cursors
                SET delivered_through = \(to), last_error = NULL, updated_at = clock_timestamp(),
                    consecutive_failures = CASE WHEN failing_recorded THEN consecutive_failures ELSE 0 END,
                    failing_since = CASE WHEN failing_recorded THEN failing_since END
                WHERE sink = \(sink) AND lease_owner = \(self.owner) AND delivered_through = \(from)
                RETURNING \(unescaped: SinkRun.columns)
                """
            ).first.map { try SinkRun(row: $0) }
        }
    }

    /// Records a failed delivery to `sink` (`error` is one line, without secrets); returns the run of failures
    /// it belongs to, or nil when this process no longer holds the lease.
    /// - Throws: ``StoreError``.
    @discardableResult
    public func recordFailure(_ sink: String, error: String) async throws -> SinkRun? {
        try await self.pool.withConnection { connection in
            try await connection.query(
                """
                UPDATE authlog.sink_cursors
                SET consecutive_failures = consecutive_failures + 1, last_error = \(String(error.prefix(500))),
                    failing_since = coalesce(failing_since, clock_timestamp()), updated_at = clock_timestamp()
                WHERE sink = \(sink) AND lease_owner = \(self.owner)
                RETURNING \(unescaped: SinkRun.columns)
                """
            ).first.map { try SinkRun(row: $0) }
        }
    }

    /// Notes that `audit.sink_failing` records the run of `sink` that began at `since`.
    /// - Throws: ``StoreError``.
    public func markRunRecorded(_ sink: String, since: Timestamp) async throws {
        _ = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                UPDATE authlog.sink_cursors SET failing_recorded = true
                WHERE sink = \(sink) AND failing_since = \(since)::timestamptz
                """
            )
        }
    }

    /// Ends the run of `sink` that began at `since`, once `audit.sink_recovered` records its end.
    /// - Throws: ``StoreError``.
    public func endRun(_ sink: String, since: Timestamp) async throws {
        _ = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                UPDATE authlog.sink_cursors
                SET consecutive_failures = 0, failing_since = NULL, failing_recorded = false
                WHERE sink = \(sink) AND failing_since = \(since)::timestamptz AND last_error IS NULL
                """
            )
        }
    }

    /// Every sink's row as the database has it, with the log's head: what `/metrics` shows whichever process
    /// delivers, and also while this one waits for another's lease.
    /// - Throws: ``StoreError``.
    public func states() async throws -> (head: Int64, sinks: [String: SinkState]) {
        try await self.pool.withConnection { connection in
            let result = try await connection.query(
                """
                SELECT h.size, c.sink, c.delivered_through, c.consecutive_failures,
                       coalesce(c.lease_owner = \(self.owner) AND c.lease_until >= clock_timestamp(), false)
                FROM authlog.log_head h LEFT JOIN authlog.sink_cursors c ON true
                """
            )
            var head: Int64 = 0
            var sinks: [String: SinkState] = [:]
            for row in result.rows {
                head = try row.decode(Int64.self, at: 0)
                guard let name = try row.decode(String?.self, at: 1) else { continue }
                sinks[name] = SinkState(
                    deliveredThrough: try row.decode(Int64.self, at: 2),
                    consecutiveFailures: try row.decode(Int.self, at: 3),
                    isLeasedHere: try row.decode(Bool.self, at: 4)
                )
            }
            return (head, sinks)
        }
    }

    /// Gives the lease of `sink` up, so another process may take over at once (at shutdown).
    /// - Throws: ``StoreError``.
    public func release(_ sink: String) async throws {
        _ = try await self.pool.withConnection { connection in
            try await connection.query(
                """
                UPDATE authlog.sink_cursors SET lease_owner = NULL, lease_until = NULL
                WHERE sink = \(sink) AND lease_owner = \(self.owner)
                """
            )
        }
    }
}

/// A sink's run of failed deliveries, as its cursor row keeps it.
public struct SinkRun: Sendable, Equatable {
    /// The failures in a row (0: the last delivery succeeded and no recorded episode waits for its end).
    public var failures: Int
    /// When the run's first failure happened; nil when there is none.
    public var since: Timestamp?
    /// Whether `audit.sink_failing` records this run.
    public var isRecorded: Bool
    /// The last position the sink acknowledged.
    public var deliveredThrough: Int64

    static let columns = "consecutive_failures, failing_since, failing_recorded, delivered_through"

    init(row: QueryRow) throws {
        self.failures = try row.decode(Int.self, at: 0)
        self.since = try row.decode(Timestamp?.self, at: 1)
        self.isRecorded = try row.decode(Bool.self, at: 2)
        self.deliveredThrough = try row.decode(Int64.self, at: 3)
    }
}

/// One sink's row as `/metrics` shows it.
public struct SinkState: Sendable, Equatable {
    /// The last position the sink acknowledged.
    public var deliveredThrough: Int64
    /// Failed deliveries since its last success (whichever process made them).
    public var consecutiveFailures: Int
    /// Whether this process holds the sink's lease (it is the one delivering).
    public var isLeasedHere: Bool

    /// A sink's row as read.
    public init(deliveredThrough: Int64, consecutiveFailures: Int, isLeasedHere: Bool) {
        self.deliveredThrough = deliveredThrough
        self.consecutiveFailures = consecutiveFailures
        self.isLeasedHere = isLeasedHere
    }
}
