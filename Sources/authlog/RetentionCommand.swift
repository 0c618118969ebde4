import ArgumentParser
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation

/// `authlog retention apply`: drops the log's oldest months as whole partitions.
struct RetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Drop the log's oldest months (whole partitions) once they are checkpointed and exported.",
        subcommands: [ApplyRetentionCommand.self]
    )
}

/// `authlog retention apply --keep 13months --exports DIR [--dry-run]`.
struct ApplyRetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Drop every month older than --keep that a signed checkpoint covers and that was exported.",
        discussion: """
            A month goes when it ended at least --keep months ago (never fewer than 12: PCI DSS 10.5.1), a \
            signed checkpoint covers its last event, and --exports holds its export (authlog export --month \
            YYYY-MM --output DIR) whose file still matches the manifest's SHA-256. Only the oldest months go, \
            up to the first that cannot; each month's events and leaves are dropped with DROP TABLE, and the \
            frontier of the dropped positions is kept so that verify and proofs go on from it. The run is \
            recorded as audit.retention_applied. Needs the database owner's role.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: ArgumentHelp("How long to keep events: 13months, or a number of months.", valueName: "months"))
    var keep: String

    @Option(help: ArgumentHelp("The directory of the month exports and their manifests.", valueName: "dir"))
    var exports: String?

    @Flag(name: .customLong("dry-run"), help: "Say what would go, and why the rest stays, without dropping.")
    var dryRun = false

    func run() async throws {
        guard let keepMonths = Self.months(self.keep) else {
            printError("--keep takes a number of months, such as 13months")
            throw ExitCode(2)
        }
        guard keepMonths >= Retention.minimumMonths else {
            printError(
                "--keep \(keepMonths) months is refused: at least \(Retention.minimumMonths) months of audit "
                    + "history are kept (PCI DSS 10.5.1)"
            )
            throw ExitCode(2)
        }
        let conninfo = try await self.database.conninfo()
        let connection = try await reportingStoreErrors { try await Connection.connect(conninfo) }
        try await self.recordUnrecorded(conninfo: conninfo, on: connection)
        let plan = try await reportingStoreErrors {
            try await Retention.plan(keepMonths: keepMonths, exportDirectory: self.exports, on: connection)
        }
        Self.printPlan(plan)
        let droppable = plan.droppable
        guard !droppable.isEmpty else {
            print("nothing to drop")
            if plan.months.isEmpty { return }
            throw ExitCode(1)
        }
        if self.dryRun {
            print("dry run: would drop \(droppable.map(\.month).joined(separator: ", ")); nothing was changed")
            return
        }
        _ = try await reportingStoreErrors {
            try await Retention.apply(plan, actor: AccessRecord.actor, on: connection)
        }
        try await self.recordUnrecorded(conninfo: conninfo, on: connection)
        let last = droppable.map(\.lastPosition).max() ?? 0
        print(
            "dropped \(droppable.map(\.month).joined(separator: ", ")) "
                + "(\(droppable.reduce(0) { $0 + $1.events }) events); the log now starts after position "
                + "\(max(last, plan.previouslyDropped))"
        )
        if droppable.count < plan.months.count { throw ExitCode(1) }
    }

    /// Appends `audit.retention_applied` for every retention run the log has no event for yet.
    private func recordUnrecorded(conninfo: String, on connection: Connection) async throws {
        let payloads = try await reportingStoreErrors { try await Retention.unrecorded(on: connection) }
        guard !payloads.isEmpty else { return }
        let store = PostgresEventStore(
            pool: ConnectionPool(conninfo: conninfo, maximumConnections: 1),
            authenticator: try eventAuthenticator()
        )
        for payload in payloads {
            let event = try EventEnvelope(payload, stream: StreamName(category: "audit", id: "retention"))
            let appended = try await reportingStoreErrors {
                try await store.appendSealed([AppendCommand(event)]).first?.get()
            }
            let position = appended?.events.first?.position.map(String.init) ?? "?"
            print("recorded audit.retention_applied for \(payload.months.joined(separator: ", ")) at \(position)")
        }
    }

    /// `13months`, `13 months`, `13`: the number of months; nil for anything else.
    static func months(_ text: String) -> Int? {
        var digits = Substring(text.lowercased())
        for suffix in ["months", "month"] where digits.hasSuffix(suffix) {
            digits = digits.dropLast(suffix.count)
            break
        }
        let trimmed = digits.trimmingCharacters(in: .whitespaces)
        guard (1...4).contains(trimmed.utf8.count), trimmed.utf8.allSatisfy({ (48...57).contains($0) }) else {
            return nil
        }
        return Int(trimmed)
    }

    private static func printPlan(_ plan: RetentionPlan) {
        guard !plan.months.isEmpty else {
            print("no month ended \(plan.keepMonths) months ago or earlier")
            return
        }
        let droppable = Set(plan.droppable.map(\.month))
        var rows: [[String]] = []
        for month in plan.months {
            let positions = month.events > 0 ? "\(month.firstPosition)…\(month.lastPosition)" : "-"
            let verdict: String
            if droppable.contains(month.month) {
                verdict = "drop"
            } else if let refusal = month.refusal {
                verdict = "keep: \(refusal)"
            } else {
                verdict = "keep: an older month stays"
            }
            rows.append([month.month, String(month.events), positions, verdict])
        }
        print(TextTable.render(header: ["month", "events", "positions", "retention"], rows: rows), terminator: "")
    }
}
