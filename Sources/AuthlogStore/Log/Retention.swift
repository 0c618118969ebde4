public import AuthlogCore
import AuthlogCrypto
public import AuthlogPostgres
import AuthlogTransparency
import Foundation

/// What `authlog retention apply --keep N` would drop: the months old enough to go, oldest first, each with
/// what stops it from going. Only an unbroken run of the oldest months goes, so the log keeps a contiguous
/// range of positions.
public struct RetentionPlan: Sendable {
    /// One month old enough to go.
    public struct Month: Sendable {
        /// `YYYY-MM`.
        public var month: String
        /// The first day of the month (`YYYY-MM-01`), the partitions' key.
        public var firstDay: String
        /// Sealed events of the month and their positions (0 and 0 when it has none).
        public var events: Int64
        public var firstPosition: Int64
        public var lastPosition: Int64
        /// The export that lets it go.
        public var manifest: ExportManifest?
        /// Why it cannot go yet (nil: it can).
        public var refusal: String?
    }

    /// Months kept.
    public var keepMonths: Int
    /// The months old enough to go, oldest first.
    public var months: [Month]
    /// The newest signed checkpoint's tree size (0 without one).
    public var latestCheckpoint: Int64
    /// The last position dropped by earlier retention (0 when none).
    public var previouslyDropped: Int64

    /// The months that go: the oldest ones up to the first that cannot.
    public var droppable: [Month] { Array(self.months.prefix { $0.refusal == nil }) }
}

/// Drops the oldest months of the log as whole partitions (PCI DSS 10.5.1: at least 12 months are kept), after
/// checking that a signed checkpoint covers every dropped event and that each month was exported; keeps the
/// frontier of the dropped positions and their tile edge (``TileEdge``) in `authlog.log_retention` so that
/// verification, proofs and every tile reaching past the minimum index continue.
/// Runs as the database owner (the server's role cannot drop tables).
public enum Retention {
    /// The fewest months retention keeps.
    public static let minimumMonths = 12

    /// What `keepMonths` would drop, checked against the manifests in `exportDirectory`.
    /// - Throws: ``StoreError`` `.invalidArgument` below ``minimumMonths``, or from the server.
    public static func plan(
        keepMonths: Int,
        exportDirectory: String?,
        on connection: Connection
    ) async throws -> RetentionPlan {
        guard keepMonths >= Self.minimumMonths, keepMonths <= 1200 else {
            throw StoreError(
                .invalidArgument,
                "--keep must be at least \(Self.minimumMonths) months (PCI DSS 10.5.1 keeps a year of audit history)"
            )
        }
        let manifests = exportDirectory.map(ExportManifest.load(from:)) ?? [:]
        let state = try await Self.logState(on: connection)
        let old = try await Self.oldMonths(keepMonths: keepMonths, on: connection)
        var months: [RetentionPlan.Month] = []
        var expectedFirst = state.previouslyDropped + 1
        for row in old.rows {
            var month = RetentionPlan.Month(
                month: try row.decode(String.self, at: 0),
                firstDay: try row.decode(String.self, at: 1),
                events: 0,
                firstPosition: 0,
                lastPosition: 0
            )
            let span = try await LogMonths.span(of: month.firstDay, on: connection)
            month.events = span.events
            month.firstPosition = span.firstPosition
            month.lastPosition = span.lastPosition
            let records = span.records
            month.manifest = manifests[month.month]
            month.refusal = Self.refusal(
                for: month,
                records: records,
                expectedFirst: expectedFirst,
                epoch: state.epoch,
                latestCheckpoint: state.latestCheckpoint,
                exportDirectory: exportDirectory
            )
            if month.events > 0 { expectedFirst = month.lastPosition + 1 }
            months.append(month)
        }
        return RetentionPlan(
            keepMonths: keepMonths,
            months: months,
            latestCheckpoint: state.latestCheckpoint,
            previouslyDropped: state.previouslyDropped
        )
    }

    /// What a plan checks the months against: the newest checkpoint's size, the last position dropped before,
    /// and the log's current month.
    private struct LogState {
        var latestCheckpoint: Int64
        var previouslyDropped: Int64
        var epoch: String
    }

    /// Reads the newest checkpoint's size, the last dropped position and the log's current month.
    private static func logState(on connection: Connection) async throws -> LogState {
        let state = try await connection.query(
            """
            SELECT coalesce((SELECT max(tree_size) FROM authlog.checkpoints), 0),
                   coalesce((SELECT max(last_dropped_position) FROM authlog.log_retention), 0),
                   (SELECT month::text FROM authlog.log_epoch)
            """
        )
        guard let stateRow = state.first else { throw StoreError(.schema, "the log's state could not be read") }
        let latestCheckpoint = try stateRow.decode(Int64.self, at: 0)
        let previouslyDropped = try stateRow.decode(Int64.self, at: 1)
        let epoch = try stateRow.decode(String.self, at: 2)
        return LogState(latestCheckpoint: latestCheckpoint, previouslyDropped: previouslyDropped, epoch: epoch)
    }

    /// The months whose partitions exist and that ended `keepMonths` months ago or earlier, oldest first
    /// (`YYYY-MM` and the first day).
    private static func oldMonths(keepMonths: Int, on connection: Connection) async throws -> QueryResult {
        try await connection.query(
            """
            SELECT to_char(m, 'YYYY-MM'), m::text FROM (
                SELECT to_date(right(c.relname, 7), 'YYYY"m"MM') AS m
                FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                WHERE i.inhparent = 'authlog.log_leaves'::regclass AND c.relname ~ '_y[0-9]{4}m[0-9]{2}$') partitions
            WHERE m + make_interval(months => \(keepMonths + 1)) <= now()
            ORDER BY m
            """
        )
    }

    private static func refusal(
        for month: RetentionPlan.Month,
        records: Int64,
        expectedFirst: Int64,
        epoch: String,
        latestCheckpoint: Int64,
        exportDirectory: String?
    ) -> String? {
        if month.firstDay >= epoch {
            return "it is still the log's current month"
        }
        if records != month.events {
            return "\(records - month.events) of its committed events have no position yet"
        }
        // A month without events has nothing to checkpoint or export.
        guard month.events > 0 else { return nil }
        if month.firstPosition != expectedFirst || month.lastPosition - month.firstPosition + 1 != month.events {
            return "its positions \(month.firstPosition)…\(month.lastPosition) are not the next contiguous range "
                + "from \(expectedFirst); run authlog verify"
        }
        if latestCheckpoint < month.lastPosition {
            return
                "no signed checkpoint covers position \(month.lastPosition) (the latest is at \(latestCheckpoint));"
                + " run authlog checkpoint"
        }
        guard let directory = exportDirectory else {
            return "no export directory was given (--exports DIR)"
        }
        guard let manifest = month.manifest else {
            return "no export manifest in \(directory); run authlog export --month \(month.month) --output \(directory)"
        }
        if manifest.firstPosition != month.firstPosition || manifest.lastPosition != month.lastPosition
            || manifest.events != month.events
        {
            return "the export's manifest says positions \(manifest.firstPosition)…\(manifest.lastPosition) "
                + "(\(manifest.events) events), the log has \(month.firstPosition)…\(month.lastPosition) "
                + "(\(month.events)); export it again"
        }
        guard manifest.file == ExportManifest.fileName(month: month.month) else {
            return "its manifest names the file \(manifest.file), not \(ExportManifest.fileName(month: month.month))"
        }
        let path = directory + "/" + manifest.file
        guard let digest = Self.sha256(ofFile: path) else {
            return "the export file \(path) cannot be read"
        }
        if Hex.encode(digest) != manifest.sha256.lowercased() {
            return "the export file \(path) does not match its manifest's SHA-256"
        }
        return nil
    }

    /// Drops the plan's droppable months in one transaction: records the frontier of the dropped positions
    /// in `authlog.log_retention`, then drops both tables' partitions of each month. Returns nil when nothing
    /// can go. The caller records ``unrecorded(on:)`` as `audit.retention_applied` afterwards.
    /// - Throws: ``StoreError`` from the server (a role that does not own the tables gets
    ///   `.insufficientPrivilege`).
    public static func apply(_ plan: RetentionPlan, actor: String, on connection: Connection) async throws -> Bool {
        let months = plan.droppable
        guard let through = months.last else { return false }
        let lastDropped = months.map(\.lastPosition).max().map { max($0, plan.previouslyDropped) } ?? 0
        let dropped = months.reduce(Int64(0)) { $0 + $1.events }
        try await connection.withTransaction { connection in
            let anchor = try await LogAnchor.make(size: lastDropped, on: connection)
            var statements: [SQLQuery] = [
                """
                INSERT INTO authlog.log_retention (through_month, months, keep_months, last_dropped_position,
                    dropped_events, frontier, tile_edge, covering_checkpoint, export_hashes, applied_at, applied_by)
                VALUES (\(through.firstDay)::date, \(ArrayLiteral(months.map(\.month)))::text[], \(plan.keepMonths),
                        \(lastDropped), \(dropped), \(ByteaValue(anchor.frontier.bytes)),
                        \(anchor.edge.map { ByteaValue($0.bytes) }), \(plan.latestCheckpoint),
                        \(ArrayLiteral(months.map { $0.manifest?.sha256 ?? "" }))::text[], now(), \(actor))
                """
            ]
            for month in months {
                let suffix = "y" + month.month.replacingOccurrences(of: "-", with: "m")
                statements.append(SQLQuery(unsafeSQL: "DROP TABLE authlog.event_records_\(suffix)"))
                statements.append(SQLQuery(unsafeSQL: "DROP TABLE authlog.log_leaves_\(suffix)"))
            }
            _ = try await connection.pipeline(statements)
        }
        return true
    }

    /// The `audit.retention_applied` payload of the newest retention run when the log has no such event for it
    /// yet (normally the one just applied; also one whose event was lost when the database went away after the
    /// drop). Only the newest run can lack its event: `authlog retention apply` records a lost one before it
    /// drops anything more. An older run's event may be gone for good reason, since it lives in the month its
    /// run wrote it, which a later run drops: looking at every run recorded those again after each drop, one
    /// more `audit.retention_applied` per old run every time.
    public static func unrecorded(on connection: Connection) async throws -> [AuditRetentionApplied] {
        let result = try await connection.query(
            """
            SELECT r.applied_by, array_to_string(r.months, ','), r.keep_months, r.last_dropped_position,
                   r.dropped_events, r.frontier, r.covering_checkpoint, array_to_string(r.export_hashes, ',')
            FROM (SELECT * FROM authlog.log_retention ORDER BY through_month DESC LIMIT 1) AS r
            WHERE NOT EXISTS (
                SELECT FROM authlog.event_records e
                WHERE e.type = 'audit.retention_applied' AND e.data->'months' = to_jsonb(r.months))
            ORDER BY r.through_month
            """
        )
        return try result.rows.map { row in
            let size = try row.decode(Int64.self, at: 3)
            let frontier = MerkleFrontier(size: size, bytes: try row.decode(ByteaValue.self, at: 5).bytes)
            return AuditRetentionApplied(
                actor: try row.decode(String.self, at: 0),
                months: try row.decode(String.self, at: 1).split(separator: ",").map(String.init),
                keepMonths: Int(try row.decode(Int32.self, at: 2)),
                lastDroppedPosition: size,
                droppedEvents: try row.decode(Int64.self, at: 4),
                rootAtDrop: Hex.encode(frontier?.root ?? []),
                coveringCheckpoint: try row.decode(Int64.self, at: 6),
                exportHashes: try row.decode(String.self, at: 7).split(separator: ",").map(String.init)
            )
        }
    }

    /// What retention dropped so far.
    public struct Dropped: Sendable, Equatable {
        /// The last dropped month (`YYYY-MM`): every event written in it or before is gone.
        public var throughMonth: String
        /// When the events were last dropped (`YYYY-MM-DD`, UTC): they were retained until then.
        public var droppedOn: String
        /// The first instant whose events are all kept: the first day of the month after ``throughMonth``.
        public var keptFrom: Timestamp
    }

    /// What retention dropped so far; nil when nothing was.
    public static func dropped(on connection: Connection) async throws -> Dropped? {
        let result = try await connection.query(
            """
            SELECT to_char(through_month, 'YYYY-MM'), to_char(applied_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'),
                   to_char(through_month + interval '1 month', 'YYYY-MM-DD')
            FROM authlog.log_retention ORDER BY through_month DESC LIMIT 1
            """
        )
        guard let row = result.first, let keptFrom = Timestamp(iso8601: try row.decode(String.self, at: 2)) else {
            return nil
        }
        return Dropped(
            throughMonth: try row.decode(String.self, at: 0),
            droppedOn: try row.decode(String.self, at: 1),
            keptFrom: keptFrom
        )
    }

    /// SHA-256 of a file, read in 1 MiB pieces; nil when it cannot be read.
    public static func sha256(ofFile path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        while true {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch { return nil }
            // Foundation answers nil or empty data at the end of the file.
            guard let chunk, !chunk.isEmpty else { break }
            hasher.update(Array(chunk))
        }
        return hasher.finalize()
    }
}
