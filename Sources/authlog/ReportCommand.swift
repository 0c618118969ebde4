import ArgumentParser
import AuthlogCore
import AuthlogStore
import Foundation

/// `authlog report [signins]`.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Answer auditors' questions from the log; the default is sign-ins per provider for the last 30 days.",
        discussion: """
            The range is --since (inclusive) to --until (exclusive), each a date (2026-11-01, midnight UTC) or an \
            ISO 8601 timestamp. Each report run is itself recorded as an audit.accessed event.
            """
    )

    /// The reports this build answers.
    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case signins
    }

    /// The output formats.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, csv, json
    }

    @Argument(help: "The report: signins (sign-ins per provider).")
    var kind: Kind = .signins

    @Option(help: "Start of the range (inclusive). Default: 30 days before --until.")
    var since: String?

    @Option(help: "End of the range (exclusive). Default: now.")
    var until: String?

    @Option(help: "table (aligned, for people), csv or json.")
    var format: Format = .table

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if let since, Timestamp(iso8601: since) == nil {
            throw ValidationError("--since must be a date or ISO 8601 time")
        }
        if let until, Timestamp(iso8601: until) == nil {
            throw ValidationError("--until must be a date or ISO 8601 time")
        }
    }

    func run() async throws {
        let until = self.until.flatMap { Timestamp(iso8601: $0) } ?? .now()
        let since = self.since.flatMap { Timestamp(iso8601: $0) } ?? until.adding(seconds: -30 * 86_400)
        guard since < until else {
            printError("--since must be before --until")
            throw ExitCode(2)
        }
        let conninfo = try await self.database.conninfo()
        let connection = try await reportingStoreErrors { try await Connection.connect(conninfo) }
        let report = try await reportingStoreErrors {
            try await SigninReport.make(since: since, until: until, on: connection)
        }
        try await AccessRecord.record("report \(self.kind.rawValue) since=\(since) until=\(until)", conninfo: conninfo)
        print(ReportFormatter.render(report, as: self.format), terminator: "")
        // CSV and JSON stay machine-readable: the note goes to standard error (the table carries it).
        if self.format != .table, let note = ReportFormatter.retentionNote(report) { printError(note) }
    }
}
