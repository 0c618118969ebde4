public import AuthlogPostgres
public import Foundation

/// Each push-delivery sink's durable cursor and lease (`authlog.sink_cursors`): the last position the sink
/// acknowledged, and which process delivers to it until when. A process delivers only while it holds the
/// lease, and moves the cursor only from where it read it, so two processes never both deliver a batch past
/// the cursor.
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
    /// still holds the lease and the cursor is still at `from`; false otherwise (the batch is then another
    /// process's to deliver again: at least once).
    /// - Throws: ``StoreError``.
    public func advance(_ sink: String, from: Int64, to: Int64) async throws -> Bool {
        try await self.pool.withConnection { connection in
            !(try await connection.query(
                """
                UPDATE authlog.sink_cursors
                SET delivered_through = \(to), consecutive_failures = 0, last_error = NULL,
                    updated_at = clock_timestamp()
                WHERE sink = \(sink) AND lease_owner = \(self.owner) AND delivered_through = \(from)
                RETURNING sink
                """
            ).rows.isEmpty)
        }
    }

    /// Records a failed delivery to `sink` (`error` is one line, without secrets); returns the consecutive
    /// failures so far.
    /// - Throws: ``StoreError``.
    @discardableResult
    public func recordFailure(_ sink: String, error: String) async throws -> Int {
        try await self.pool.withConnection { connection in
            Int(
                try await connection.query(
                    """
                    UPDATE authlog.sink_cursors
                    SET consecutive_failures = consecutive_failures + 1, last_error = \(String(error.prefix(500))),
                        updated_at = clock_timestamp()
                    WHERE sink = \(sink) AND lease_owner = \(self.owner)
                    RETURNING consecutive_failures::bigint
                    """
                ).first?.decode(Int64.self, at: 0) ?? 0
            )
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
