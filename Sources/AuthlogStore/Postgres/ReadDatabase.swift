/// How far a read replica was behind its primary when a read began: what `audit.accessed` notes and
/// `/readyz` reports.
public struct ReplicaLag: Sendable, Equatable {
    /// Bytes of the primary's write-ahead log the replica had not replayed (0 when caught up).
    public var bytesBehind: Int64
    /// Milliseconds since the last transaction the replica replayed was committed on the primary, when it is
    /// behind; 0 when it has replayed everything the primary wrote. `nil` when the replica has replayed
    /// nothing since it started, so the time is unknown.
    public var milliseconds: Int64?

    /// Creates a lag.
    public init(bytesBehind: Int64, milliseconds: Int64?) {
        self.bytesBehind = bytesBehind
        self.milliseconds = milliseconds
    }

    /// Measures the lag of `replica` behind `primary`: the primary's current WAL position against the
    /// replica's replayed one. A replica that is not a standby (a logical copy, or the primary itself) is
    /// reported as caught up: PostgreSQL gives no position to compare.
    /// - Throws: ``StoreError`` from either server.
    public static func measure(replica: Connection, primary: Connection) async throws -> ReplicaLag {
        let position = try await primary.query("SELECT pg_current_wal_lsn()::text")
        let primaryPosition = try position.first?.decode(String.self, at: 0) ?? "0/0"
        let rows = try await replica.query(
            """
            SELECT CASE WHEN pg_is_in_recovery()
                        THEN greatest(pg_wal_lsn_diff(\(primaryPosition)::pg_lsn, pg_last_wal_replay_lsn()), 0)::int8
                        ELSE 0 END,
                   CASE WHEN NOT pg_is_in_recovery()
                          OR pg_last_wal_replay_lsn() >= \(primaryPosition)::pg_lsn THEN 0
                        ELSE greatest(round(extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp())
                                            * 1000), 0)::int8 END
            """
        )
        guard let row = rows.first else { throw StoreError(.decoding, "no replica position") }
        return ReplicaLag(
            bytesBehind: try row.decode(Int64.self, at: 0),
            milliseconds: try row.decode(Int64?.self, at: 1)
        )
    }
}

/// Whether the server behind a connection is a standby (in recovery: read-only, following a primary).
public enum ServerRole {
    /// `pg_is_in_recovery()` of the connection's server.
    /// - Throws: ``StoreError`` from the server.
    public static func isStandby(_ connection: Connection) async throws -> Bool {
        let rows = try await connection.query("SELECT pg_is_in_recovery()")
        return try rows.first?.decode(Bool.self, at: 0) ?? false
    }
}

/// Where reads of the log go: a read replica when one is configured, else the primary. Writes, and reads
/// that must see their own writes (sign-in, refresh, admin actions), never come here; they use the primary.
public struct ReadDatabase: Sendable {
    /// The primary: every write, and the reference the replica's lag is measured against.
    public let primary: ConnectionPool
    /// The read replica, when configured.
    public let replica: ConnectionPool?

    /// Reads from `replica` when given, else from `primary`.
    public init(primary: ConnectionPool, replica: ConnectionPool? = nil) {
        self.primary = primary
        self.replica = replica
    }

    /// Runs `body` on the replica (or the primary) and returns what it returned with the replica's lag,
    /// measured just before `body` began (`nil` when reading from the primary).
    /// - Throws: ``StoreError`` from either database, or what `body` throws.
    public func read<T: Sendable>(
        _ body: @Sendable (Connection) async throws -> T
    ) async throws -> (value: T, lag: ReplicaLag?) {
        guard let replica = self.replica else {
            return (try await self.primary.withConnection(body), nil)
        }
        return try await replica.withConnection { connection in
            let lag = try await self.primary.withConnection {
                try await ReplicaLag.measure(replica: connection, primary: $0)
            }
            return (try await body(connection), lag)
        }
    }

    /// The replica's state for `/readyz`: its lag now, or the error that kept it from answering; `nil` when
    /// no replica is configured.
    public func replicaState() async -> Result<ReplicaLag, StoreError>? {
        guard self.replica != nil else { return nil }
        do {
            return .success(try await self.read { _ in () }.lag ?? ReplicaLag(bytesBehind: 0, milliseconds: 0))
        } catch let error as StoreError {
            return .failure(error)
        } catch {
            return .failure(StoreError(.connectionFailed, "\(error)"))
        }
    }
}
