import AuthlogPostgres
import Foundation

/// What one store measurement cost per event: CPU of this process (the writers, or the baseline's client) and
/// of the measured PostgreSQL cluster (not the other clusters of this machine), read from `/proc` around the run (steadier than throughput on a shared machine), and the WAL
/// the cluster wrote, from `pg_current_wal_lsn()`.
struct Footprint {
    /// Microseconds of this process's CPU per event.
    let benchMicroseconds: Double
    /// Microseconds of PostgreSQL's CPU per event.
    let postgresMicroseconds: Double
    /// Bytes of WAL per event.
    let walBytes: Double
    /// Events the measurement stored (its rate times its length).
    let events: Double
    /// The cluster's WAL position before and after the measurement (`pg_lsn` text), for ``WALDetail``.
    let walSpan: (start: String, end: String)

    /// Runs `measurement` (which returns events per second) and returns its rate with its footprint.
    static func measure(
        cluster: String,
        _ measurement: () async throws -> Double
    ) async throws -> (rate: Double, footprint: Footprint) {
        let connection = try await Connection.connect(cluster)
        let postmaster = try await ProcessCPU.postmaster(of: connection)
        let walBefore = try await Self.walPosition(on: connection)
        let startLSN = try await WALDetail.position(on: connection)
        let benchBefore = ProcessCPU.ofThisProcess
        let postgresBefore = ProcessCPU.seconds(ofCluster: postmaster)
        let start = ContinuousClock.now
        let rate = try await measurement()
        let seconds = (ContinuousClock.now - start).inSeconds
        let bench = ProcessCPU.ofThisProcess - benchBefore
        let postgres = ProcessCPU.seconds(ofCluster: postmaster) - postgresBefore
        let wal = try await Self.walPosition(on: connection) - walBefore
        let endLSN = try await WALDetail.position(on: connection)
        let events = max(rate * seconds, 1)
        return (
            rate,
            Footprint(
                benchMicroseconds: bench * 1_000_000 / events,
                postgresMicroseconds: postgres * 1_000_000 / events,
                walBytes: Double(wal) / events,
                events: events,
                walSpan: (startLSN, endLSN)
            )
        )
    }

    /// `"213 us bench process + 520 us PostgreSQL CPU, 2479 B WAL per event"`.
    var summary: String {
        String(
            format: "%.0f us bench process + %.0f us PostgreSQL CPU, %.0f B WAL per event",
            self.benchMicroseconds,
            self.postgresMicroseconds,
            self.walBytes
        )
    }

    private static func walPosition(on connection: Connection) async throws -> Int64 {
        let rows = try await connection.query("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint").rows
        return try rows.first?.decode(Int64.self, at: 0) ?? 0
    }
}
