import ArgumentParser
import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation

/// `authlog-bench retention`: the time `Retention.apply` takes to drop a month of 1 M events, against a
/// `DELETE` of the same rows from unpartitioned copies in the same run.
struct RetentionBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Measure dropping a month of events (DROP TABLE) against DELETE of the same rows.",
        discussion: """
            Fills a fresh database with sealed events in the month 2024-01 (the log's month is moved back by \
            hand), then moves the log to the current month. The checkpoint row covering them and the export \
            manifest (for a placeholder file) are written by the benchmark (signing and exporting are not what is measured). Measured: \
            retention's planning checks, and the drop itself (the frontier of the dropped positions, the \
            log_retention row and DROP TABLE of both partitions, in one transaction); the baseline deletes the \
            same rows from unpartitioned copies of both tables with the same indexes (vacuum not counted). Goal: \
            the drop under 1 s.
            """
    )

    @OptionGroup var clusterOptions: ClusterOptions

    @Option(help: "Events in the dropped month.")
    var events: Int = 1_000_000

    func run() async throws {
        let cluster = try self.clusterOptions.cluster()
        let database = try await BenchDatabase.make(in: cluster)
        let connection = try await Connection.connect(database.conninfo)
        try await self.fillMonthAndCopies(database: database, on: connection)
        let exports = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-bench-\(UUID())").path
        try PlaceholderExport.write(month: "2024-01", first: 1, last: Int64(self.events), in: exports)

        let planStart = ContinuousClock.now
        let plan = try await Retention.plan(keepMonths: 12, exportDirectory: exports, on: connection)
        let planSeconds = (ContinuousClock.now - planStart).inSeconds
        guard plan.droppable.first?.month == "2024-01", plan.droppable.first?.events == Int64(self.events) else {
            throw ValidationError("2024-01 cannot be dropped: \(plan.months.first?.refusal ?? "no such month")")
        }
        let dropStart = ContinuousClock.now
        _ = try await Retention.apply(plan, actor: "authlog-bench", on: connection)
        let dropSeconds = (ContinuousClock.now - dropStart).inSeconds

        let deleteSeconds = try await Self.deleteFromCopies(on: connection)

        say("retention benchmark: a month of \(self.events) sealed events")
        say(String(format: "retention's checks (counts, positions, export hash): %.3f s", planSeconds))
        say(String(format: "drop (frontier, log_retention row, DROP TABLE of both partitions): %.3f s", dropSeconds))
        say(String(format: "baseline DELETE of the same rows from unpartitioned copies: %.3f s", deleteSeconds))
        say(
            String(
                format: "drop vs DELETE: %.4fx the time (%.0fx faster); goal: drop under 1 s: %@",
                dropSeconds / deleteSeconds,
                deleteSeconds / dropSeconds,
                dropSeconds < 1 ? "met" : "NOT met"
            )
        )
    }

    /// Fills January 2024 with the events and sealed leaves, signs a checkpoint row over them, and copies both
    /// partitions into unpartitioned tables for the DELETE baseline.
    private func fillMonthAndCopies(database: BenchDatabase, on connection: Connection) async throws {
        try await connection.execute(
            """
            SELECT authlog.create_log_partitions('2024-01-01', '2024-01-01');
            UPDATE authlog.log_epoch SET month = '2024-01-01'
            """
        )
        let fillStart = ContinuousClock.now
        try await SyntheticFailures.fill(conninfo: database.conninfo, count: self.events)
        try await LogMonths.prepare(on: connection)
        say(
            String(
                format: "filled and sealed %d events in 2024-01 in %.1f s",
                self.events,
                (ContinuousClock.now - fillStart).inSeconds
            )
        )
        try await connection.execute(
            """
            INSERT INTO authlog.checkpoints (tree_size, root, key_name, note, signed_at)
            SELECT size, root, 'bench', 'written by authlog-bench retention', now() FROM authlog.log_head;
            CREATE TABLE public.delete_records (LIKE authlog.event_records_y2024m01 INCLUDING ALL);
            INSERT INTO public.delete_records SELECT * FROM authlog.event_records_y2024m01;
            CREATE TABLE public.delete_leaves (LIKE authlog.log_leaves_y2024m01 INCLUDING ALL);
            INSERT INTO public.delete_leaves SELECT * FROM authlog.log_leaves_y2024m01
            """
        )
        try await connection.execute("VACUUM ANALYZE public.delete_records, public.delete_leaves")
    }

    /// Seconds to DELETE the month's rows from the unpartitioned copies: the baseline.
    private static func deleteFromCopies(on connection: Connection) async throws -> Double {
        let deleteStart = ContinuousClock.now
        try await connection.execute(
            """
            BEGIN;
            DELETE FROM public.delete_records WHERE log_month = '2024-01-01';
            DELETE FROM public.delete_leaves WHERE log_month = '2024-01-01';
            COMMIT
            """
        )
        return (ContinuousClock.now - deleteStart).inSeconds
    }
}
