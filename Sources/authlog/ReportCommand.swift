import ArgumentParser
import AuthlogCore
import AuthlogServer
import AuthlogStore
import Foundation

/// `authlog report [signins|failures|sessions|revocations|alerts]`.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Answer auditors' questions from the log; the default is sign-ins per provider for the last 30 days.",
        discussion: """
            signins: succeeded and failed sign-ins. failures: failed sign-ins by reason. sessions: started, ended \
            by logout, expiry, revocation, reuse or deletion, and active at the end of the range. revocations: \
            revoked sessions by source (user, admin, provider_notice, credential_state, reuse, deletion). alerts: \
            sign-ins and refreshes judged unusual (signin.flagged) by judgement, counted by decision. \
            The range is --since (inclusive) to --until (exclusive), each a date (2026-11-01, midnight UTC) or an \
            ISO 8601 timestamp. --format html writes one self-contained evidence page (charts, tables, the \
            verify verdict and the latest signed checkpoint). Each report run is itself recorded as an \
            audit.accessed event.
            """
    )

    /// The output formats.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, csv, json, html
    }

    @Argument(help: "signins, failures, sessions, revocations or alerts.")
    var kind: String = Report.Kind.signins.rawValue

    @Option(help: "Start of the range (inclusive). Default: 30 days before --until.")
    var since: String?

    @Option(help: "End of the range (exclusive). Default: now.")
    var until: String?

    @Option(help: "Group by any of day, provider, client, reason, comma-separated. Default: the report's own.")
    var by: String?

    @Option(help: "table (aligned, for people), csv, json or html (an evidence page).")
    var format: Format = .table

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var replica: ReadReplicaOptions
    @OptionGroup var key: CheckpointKeyOptions

    func run() async throws {
        let query: ReportQuery
        do {
            query = try ReportRequest.query(kind: self.kind, since: self.since, until: self.until, by: self.by)
        } catch {
            printError(error.description)
            // A refused report is an attempt to read the log, and recorded as one (as the route records it), on
            // the primary alone: nothing was read.
            let primary = try await self.database.conninfo()
            try? await AccessRecord.record("report", refusal: "invalid_request", conninfo: primary)
            throw ExitCode(2)
        }
        let target = try await self.database.readTarget(self.replica)
        let conninfo = target.primary
        let (connection, lag, report) = try await target.open { connection, _ in try await query.run(on: connection) }
        let what = ReportRequest.summary(of: query) + " format=\(self.format.rawValue)"
        switch self.format {
        case .table:
            try await AccessRecord.record(what, lag: lag, conninfo: conninfo)
            print(ReportText.table(report), terminator: "")
        case .csv, .json:
            try await AccessRecord.record(what, lag: lag, conninfo: conninfo)
            print(
                self.format == .csv ? ReportText.csv(report) : ReportText.json(report).canonicalText + "\n",
                terminator: ""
            )
            // CSV stays machine-readable: its notes go to standard error (JSON carries them in "notes").
            if self.format == .csv { for note in ReportText.notes(report) { printError(note) } }
        case .html:
            let page = try await EvidenceCollector(key: self.key).page(for: report, on: connection)
            try await AccessRecord.record(what, lag: lag, conninfo: conninfo)
            print(page.render(), terminator: "")
            // The page is written either way (it says what failed); the exit status says it too, for scripts.
            guard page.verdict?.passed ?? true else {
                printError("the log did not verify: \(page.verdict?.summary ?? "") (the page is written and says so)")
                throw ExitCode(1)
            }
        }
    }
}
