public import AuthlogCore
public import AuthlogPostgres
import Synchronization

/// How far a read replica was behind its primary when a read began: what `audit.accessed` notes and
/// `/readyz` reports.
public struct ReplicaLag: Sendable, Equatable {
    /// Bytes of the primary's write-ahead log the replica had not replayed (0 when caught up).
    public var bytesBehind: Int64
    /// How long ago the oldest sealed event the replica did not have yet was recorded on the primary, in
    /// milliseconds; 0 when the replica had every sealed event. It does not grow while the primary is idle,
    /// and it grows while the replica's replay is stuck.
    public var milliseconds: Int64

    /// Creates a lag.
    public init(bytesBehind: Int64, milliseconds: Int64) {
        self.bytesBehind = bytesBehind
        self.milliseconds = milliseconds
    }

    /// Measures the lag of `replica` behind `primary`: the primary's current WAL position against the one the
    /// replica replayed, and the age on the primary of the first sealed event after the replica's log head. A
    /// replica that is not a standby (a logical copy, or the primary itself) has no WAL position to compare:
    /// its bytes behind are 0.
    /// - Throws: ``StoreError`` from either server.
    public static func measure(replica: Connection, primary: Connection) async throws -> ReplicaLag {
        let position = try await primary.query("SELECT pg_current_wal_lsn()::text")
        let primaryPosition = try position.first?.decode(String.self, at: 0) ?? "0/0"
        let rows = try await replica.query(
            """
            SELECT CASE WHEN pg_is_in_recovery()
                        THEN coalesce(greatest(pg_wal_lsn_diff(\(primaryPosition)::pg_lsn, pg_last_wal_replay_lsn()), 0), 0)
                        ELSE 0 END::int8,
                   (SELECT size FROM authlog.log_head)
            """
        )
        guard let row = rows.first else { throw StoreError(.decoding, "no replica position") }
        let replicaHead = try row.decode(Int64.self, at: 1)
        let age = try await primary.query(
            """
            SELECT coalesce((SELECT greatest(round(extract(epoch FROM clock_timestamp() - recorded_at) * 1000), 0)::int8
                             FROM authlog.events WHERE position = \(replicaHead + 1)), 0)
            """
        )
        return ReplicaLag(
            bytesBehind: try row.decode(Int64.self, at: 0),
            milliseconds: try age.first?.decode(Int64.self, at: 0) ?? 0
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

    /// Whether `error`, met reading from a replica, means that the primary should answer instead: the
    /// replica is unreachable, has not replayed what was asked for yet (a position beyond its head), or
    /// cancelled the read because replay needed its rows (SQLSTATE 40001, "conflict with recovery").
    public static func isReplicaShortcoming(_ error: any Error) -> Bool {
        guard let error = error as? StoreError else { return false }
        return error.code == .connectionFailed || error.code == .outOfRange || error.sqlState == "40001"
    }

    /// The lag of the replica that `replica` is a connection to, measured against a connection of the primary.
    private func lag(of replica: Connection) async throws -> ReplicaLag {
        try await self.primary.withConnection { try await ReplicaLag.measure(replica: replica, primary: $0) }
    }

    /// Runs `body` on the replica and returns what it returned with the replica's lag, measured just before
    /// `body` began. The primary answers instead (lag `nil`) when no replica is configured, or when the
    /// replica falls short (``isReplicaShortcoming(_:)``): an audited read then still answers,
    /// from the primary, and is recorded as the primary's.
    /// - Throws: ``StoreError`` from the primary, or what `body` throws there.
    public func read<T: Sendable>(
        measuringLag: Bool = true,
        _ body: @Sendable (Connection) async throws -> T
    ) async throws -> (value: T, lag: ReplicaLag?) {
        if let replica = self.replica {
            do {
                return try await replica.withConnection { connection in
                    let lag = measuringLag ? try await self.lag(of: connection) : nil
                    return (try await body(connection), lag)
                }
            } catch  where Self.isReplicaShortcoming(error) {
                // Answered by the primary below.
            }
        }
        return (try await self.primary.withConnection(body), nil)
    }

    /// The replica's state for `/readyz`: its lag now, or why it did not answer within `limit`; `nil` when no
    /// replica is configured.
    public func replicaState(limit: Duration = .seconds(2)) async -> Result<ReplicaLag, StoreError>? {
        guard let replica = self.replica else { return nil }
        // The answer comes from whichever finishes first: the measurement, or the clock. A replica whose host
        // does not answer can hold a connection attempt far longer than a probe may wait.
        let once = FirstAnswer()
        return await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<ReplicaLag, StoreError>, Never>) in
            @Sendable func answer(_ result: Result<ReplicaLag, StoreError>) {
                if once.claim() { continuation.resume(returning: result) }
            }
            Task {
                do {
                    let lag = try await replica.withConnection { try await self.lag(of: $0) }
                    answer(.success(lag))
                } catch let error as StoreError {
                    answer(.failure(error))
                } catch {
                    answer(.failure(StoreError(.connectionFailed, "the replica did not answer")))
                }
            }
            Task {
                try? await Task.sleep(for: limit)
                answer(.failure(StoreError(.connectionFailed, "the replica did not answer within \(limit)")))
            }
        }
    }
}

/// Lets the first of several racing tasks give the answer.
private final class FirstAnswer: Sendable {
    private let answered = Mutex(false)

    /// True for the first caller only.
    func claim() -> Bool {
        self.answered.withLock { done in
            defer { done = true }
            return !done
        }
    }
}

extension AuditAccessed {
    /// The payload of a read of the log; `lag` when a read replica served it.
    public init(actor: String, query: String, lag: ReplicaLag?) {
        self.init(actor: actor, query: query, replicaLag: lag.map { ($0.milliseconds, $0.bytesBehind) })
    }
}
