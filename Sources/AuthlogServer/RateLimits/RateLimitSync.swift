import AuthlogCore
public import AuthlogPostgres
import Foundation
import Synchronization

/// Makes the `serve` processes on one database share one budget per rate-limit key. Every second each
/// process adds what its buckets admitted since the last pass to its own rows of `authlog.rate_limit_usage`
/// (running totals per bucket, key and process) and reads the other processes' rows changed since its last
/// read; what they admitted is charged to its own buckets (``ClientRateLimiter/charge(_:_:now:)``).
///
/// Tolerance: a process learns of the others' admissions within about two passes, so N processes admit at
/// most N bursts at once for a key, and past that the key's rate plus at most what N processes admit in two
/// seconds. When the database cannot be reached, each process keeps enforcing its own buckets: the cluster then
/// admits up to N times a budget — never everyone, never no one — and `authlog_rate_limit_sync_failures_total`
/// counts the failed passes.
public final class RateLimitSync: Sendable {
    /// A row of the table: one process's running total for one key of one bucket.
    private struct Usage: Hashable {
        let bucket: String
        let key: String
        let process: String
    }

    private struct State {
        /// The other processes' totals last read, with when each was last changed by a pass.
        var seen: [Usage: (total: Int64, at: Timestamp)] = [:]
        /// When this process last read (the database's clock).
        var lastRead: Timestamp?
        var passes = 0
        var failures = 0
    }

    /// This process's id in the table.
    let process = UUID()
    let limiter: RateLimiter
    private let state = Mutex(State())
    /// The most rows of others read in one pass.
    static let maximumRowsRead = 50_000

    /// A sync for `limiter`'s buckets.
    public init(limiter: RateLimiter) { self.limiter = limiter }

    /// One pass: writes this process's admissions, reads and charges the others'.
    /// - Throws: ``StoreError`` when the database fails; the admissions of this pass are then not shared.
    public func pass(pool: ConnectionPool) async throws {
        let buckets = self.limiter.sharedBuckets
        var names: [String] = []
        var keys: [String] = []
        var counts: [String] = []
        for (name, bucket) in buckets {
            for (key, count) in bucket.takeAdmitted() {
                names.append(name)
                keys.append(key)
                counts.append(String(count))
            }
        }
        let me = self.process
        let since = self.state.withLock { $0.lastRead }
        let pass = self.state.withLock {
            $0.passes += 1
            return $0.passes
        }
        let read: (rows: [(Usage, Int64, Timestamp)], now: Timestamp)
        do {
            read = try await pool.withConnection { connection in
                if !names.isEmpty {
                    try await connection.query(
                        """
                        INSERT INTO authlog.rate_limit_usage AS usage (bucket, key, process, admitted, updated_at)
                        SELECT bucket, key, \(me), admitted, now()
                        FROM unnest(\(ArrayLiteral(names))::text[], \(ArrayLiteral(keys))::text[],
                                    \(ArrayLiteral(counts))::bigint[]) AS mine (bucket, key, admitted)
                        ON CONFLICT (bucket, key, process)
                        DO UPDATE SET admitted = usage.admitted + excluded.admitted, updated_at = excluded.updated_at
                        """
                    )
                }
                if pass % 60 == 0 {
                    try await connection.query(
                        "DELETE FROM authlog.rate_limit_usage WHERE updated_at < now() - interval '10 minutes'"
                    )
                }
                // Two seconds back from the last read: a pass that committed just before it is not missed.
                let from = since.map { Timestamp(microsecondsSinceEpoch: $0.microsecondsSinceEpoch - 2_000_000) }
                let result = try await connection.query(
                    """
                    SELECT bucket, key, process::text, admitted, updated_at, now()
                    FROM authlog.rate_limit_usage
                    WHERE process <> \(me) AND updated_at >= coalesce(\(from)::timestamptz, '-infinity')
                    LIMIT \(Self.maximumRowsRead)
                    """
                )
                let rows = try result.rows.map { row in
                    let usage = Usage(
                        bucket: try row.decode(String.self, at: 0),
                        key: try row.decode(String.self, at: 1),
                        process: try row.decode(String.self, at: 2)
                    )
                    return (usage, try row.decode(Int64.self, at: 3), try row.decode(Timestamp.self, at: 4))
                }
                // The database's clock: the next read starts from it.
                let clock = result.rows.isEmpty ? try await connection.query("SELECT now()").rows : result.rows
                let now = try clock.first?.decode(Timestamp.self, at: result.rows.isEmpty ? 0 : 5) ?? Timestamp.now()
                return (rows, now)
            }
        } catch {
            self.state.withLock { $0.failures += 1 }
            throw error
        }
        self.charge(read.rows, readAt: read.now, since: since, buckets: buckets)
    }

    /// Charges what the others admitted since this process last saw their totals. A total seen for the first
    /// time counts whole when this process had not read since before it began (a new row), else it is only
    /// noted (a process just started does not charge what others admitted before it).
    private func charge(
        _ rows: [(Usage, Int64, Timestamp)],
        readAt now: Timestamp,
        since: Timestamp?,
        buckets: [String: ClientRateLimiter]
    ) {
        let charges: [(Usage, Int)] = self.state.withLock { state in
            var charges: [(Usage, Int)] = []
            for (usage, total, updated) in rows {
                let previous = state.seen[usage]?.total ?? (since == nil ? total : 0)
                if total > previous { charges.append((usage, Int(total - previous))) }
                state.seen[usage] = (total, updated)
            }
            state.lastRead = now
            // Past the table's ten quiet minutes and the minute between clean-ups: the row is gone, and a row of
            // that key made later is new.
            let horizon = now.microsecondsSinceEpoch - 720_000_000
            state.seen = state.seen.filter { $0.value.at.microsecondsSinceEpoch >= horizon }
            return charges
        }
        for (usage, count) in charges { buckets[usage.bucket]?.charge(usage.key, count) }
    }

    /// Passes made and passes that failed.
    var totals: (passes: Int, failures: Int) { self.state.withLock { ($0.passes, $0.failures) } }

    /// The sync's counters in Prometheus text.
    func metricLines() -> [String] {
        let totals = self.totals
        return ServerMetrics.counter(
            "authlog_rate_limit_sync_passes_total",
            help: "Passes sharing the rate limits' admissions with the other processes through the database.",
            samples: [([], totals.passes)]
        )
            + ServerMetrics.counter(
                "authlog_rate_limit_sync_failures_total",
                help: "Passes that failed; each process then enforced its own buckets only.",
                samples: [([], totals.failures)]
            )
    }
}
