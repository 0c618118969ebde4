import AuthlogCore
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

@Suite(.enabled(if: TestDatabase.isAvailable))
struct ReportCommandTests {
    /// Counts computed straight from the events with SQL written here, independently of the roll-ups.
    private func expected(
        _ database: TestDatabase,
        since: String,
        until: String
    ) async throws -> [String: (succeeded: Int64, failed: Int64)] {
        let rows = try await database.connect().query(
            """
            SELECT provider,
                   sum(CASE WHEN type = 'signin.succeeded' THEN 1 ELSE 0 END)::bigint,
                   sum(CASE WHEN type = 'signin.failed' THEN 1 ELSE 0 END)::bigint
            FROM authlog.events e
            WHERE type LIKE 'signin.%' AND occurred_at >= \(since)::timestamptz AND occurred_at < \(until)::timestamptz
            GROUP BY provider
            """
        )
        var result: [String: (Int64, Int64)] = [:]
        for row in rows.rows {
            result[try row.decode(String.self, at: 0)] = (
                try row.decode(Int64.self, at: 1), try row.decode(Int64.self, at: 2)
            )
        }
        return result
    }

    @Test func reportNumbersEqualIndependentCountsInEveryFormat() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 11)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        try await store.append(AppendCommand(events: traffic.events(count: 3000)))
        try await store.sealPending()
        let ranges = [
            ("2026-10-01", "2026-11-01"), ("2026-10-03T12:00:00Z", "2026-10-05T06:30:00Z"),
            ("2026-10-02", "2026-10-03"), ("2025-01-01", "2026-10-01"),
        ]
        var nonEmptyRanges = 0
        for (since, until) in ranges {
            let expected = try await self.expected(database, since: since, until: until)
            if !expected.isEmpty { nonEmptyRanges += 1 }
            let arguments = ["report", "signins", "--since", since, "--until", until]

            let json = try await CLIProcess.run(arguments + ["--format", "json"], databaseURL: database.conninfo)
            #expect(json.status == 0, "\(json.stderr)")
            let document = try JSONParser().parse(json.stdout)
            guard case .array(let rows) = document["rows"] else {
                Issue.record("JSON output has no rows array: \(json.stdout)")
                continue
            }
            #expect(document["kind"] == .string("signins"))
            #expect(document["by"] == .array([.string("provider")]))
            #expect(rows.count == expected.count)
            for row in rows {
                let provider = row["provider"]?.stringValue ?? ""
                let counts = expected[provider]
                #expect(row["succeeded"] == .number(String(counts?.succeeded ?? -1)), "\(provider) \(since)")
                #expect(row["failed"] == .number(String(counts?.failed ?? -1)))
            }

            let csv = try await CLIProcess.run(arguments + ["--format", "csv"], databaseURL: database.conninfo)
            #expect(csv.status == 0, "\(csv.stderr)")
            let csvLines = csv.stdout.split(separator: "\n")
            #expect(csvLines.first == "provider,succeeded,failed")
            #expect(
                Set(csvLines.dropFirst()) == Set(expected.map { "\($0.key),\($0.value.succeeded),\($0.value.failed)" })
            )

            let table = try await CLIProcess.run(arguments, databaseURL: database.conninfo)
            #expect(table.status == 0, "\(table.stderr)")
            let tableLines = table.stdout.split(separator: "\n").map(String.init)
            try #require(tableLines.count > 2, "a table has a title, a header and rows: \(table.stdout)")
            #expect(
                tableLines[1].split(separator: " ", omittingEmptySubsequences: true) == [
                    "provider", "succeeded", "failed",
                ]
            )
            let widths = Set(tableLines.dropFirst().map(\.count))
            #expect(widths.count == 1, "every table line has the same width: \(tableLines)")
            let total = try #require(tableLines.last).split(separator: " ", omittingEmptySubsequences: true)
            #expect(total.first == "total")
            #expect(total.dropFirst(1).first.map(String.init) == String(expected.values.map(\.succeeded).reduce(0, +)))
            #expect(total.dropFirst(2).first.map(String.init) == String(expected.values.map(\.failed).reduce(0, +)))
            for (provider, counts) in expected {
                let line = try #require(tableLines.first { $0.hasPrefix(provider + " ") })
                #expect(
                    line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                        == [provider, String(counts.succeeded), String(counts.failed)]
                )
            }
        }
        #expect(nonEmptyRanges >= 3)
        #expect(try await database.scalar("SELECT count(*) FROM authlog.events WHERE type = 'audit.accessed'") == 12)
    }

    @Test func aBadDateIsAUsageError() async throws {
        let database = try await TestDatabase.make()
        let output = try await CLIProcess.run(["report", "--since", "last tuesday"], databaseURL: database.conninfo)
        #expect(output.status == 2)
        #expect(output.stderr.contains("since must be a date (2026-11-01) or an ISO 8601 time"))
        for (arguments, message) in [
            (["report", "logins"], "unknown report \"logins\"; use one of signins, failures, sessions, revocations"),
            (["report", "sessions", "--by", "reason"], "a sessions report cannot be grouped by reason"),
            (["report", "failures", "--by", "day,week"], "by: unknown dimension \"week\""),
            (["report", "--since", "2026-11-02", "--until", "2026-11-01"], "since must be before until"),
        ] {
            let refused = try await CLIProcess.run(arguments, databaseURL: database.conninfo)
            #expect(refused.status == 2, "\(arguments)")
            #expect(refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
        #expect(
            try await database.scalar(
                "SELECT count(*) FROM authlog.events WHERE type = 'audit.accessed' AND reason = 'invalid_request'"
            ) == 5,
            "each refused report is recorded"
        )
    }

    /// Every kind through the command line gives what the library's query gives (whose numbers
    /// ReportQueryTests holds to independent counts), in JSON and CSV, and names its columns.
    @Test func everyKindAndGroupingPrintsTheQuerysNumbers() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 13)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        try await store.append(AppendCommand(events: traffic.events(count: 2000)))
        try await store.sealPending()
        let connection = try await database.connect()
        for (kind, by) in [
            ("signins", "day,provider"), ("failures", nil), ("sessions", "provider,client"), ("revocations", nil),
            ("revocations", "day,reason"), ("sessions", "day"),
        ] {
            var arguments = ["report", kind, "--since", "2026-10-02T06:00:00Z", "--until", "2026-10-09T18:30:00Z"]
            if let by { arguments += ["--by", by] }
            let query = try ReportRequest.query(
                kind: kind,
                since: "2026-10-02T06:00:00Z",
                until: "2026-10-09T18:30:00Z",
                by: by
            )
            let report = try await query.run(on: connection)
            #expect(!report.rows.isEmpty, "\(kind) \(by ?? "")")
            let json = try await CLIProcess.run(arguments + ["--format", "json"], databaseURL: database.conninfo)
            #expect(json.status == 0, "\(json.stderr)")
            #expect(try JSONParser().parse(json.stdout).canonicalText == ReportText.json(report).canonicalText)
            let csv = try await CLIProcess.run(arguments + ["--format", "csv"], databaseURL: database.conninfo)
            #expect(csv.stdout == ReportText.csv(report))
            #expect(csv.stdout.hasPrefix(report.header.joined(separator: ",") + "\n"))
            let table = try await CLIProcess.run(arguments, databaseURL: database.conninfo)
            #expect(table.stdout == ReportText.table(report))
        }
    }

    /// `--format html` is the evidence page over the real database: the three charts, the requested table,
    /// `verify`'s verdict with the signatures checked, and the latest checkpoint verbatim; it is recorded.
    @Test func theHTMLReportIsAnEvidencePageWithTheVerdictAndTheCheckpoint() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 14)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        try await store.append(AppendCommand(events: traffic.events(count: 1500)))
        try await store.sealPending()
        let (directory, configFile) = try await checkpointKeyConfiguration(named: "authlog-html")
        let signed = try await CLIProcess.run(["checkpoint", "--config", configFile], databaseURL: database.conninfo)
        #expect(signed.status == 0, "\(signed.stderr)")
        let note = try #require(try await Checkpointer.stored(size: nil, on: database.connect())?.note)

        let arguments = [
            "report", "failures", "--since", "2026-10-01", "--until", "2026-10-20", "--format", "html",
            "--verifier-key", "\(directory)/checkpoint.vkey",
        ]
        let html = try await CLIProcess.run(arguments, databaseURL: database.conninfo)
        #expect(html.status == 0, "\(html.stderr)")
        let page = html.stdout
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.components(separatedBy: "<svg").count - 1 == 3, "three charts")
        #expect(!page.contains("<script"))
        #expect(page.contains("log intact"), "the verify verdict")
        #expect(page.contains("signatures checked with the key auth.test/log"))
        let escapedNote = note.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        #expect(page.contains(escapedNote.split(separator: "\n").first.map(String.init) ?? "-"), "the checkpoint")
        let failures = try ReportRequest.query(kind: "failures", since: "2026-10-01", until: "2026-10-20", by: nil)
        let report = try await failures.run(on: database.connect())
        #expect(report.total.first.map { page.contains(String($0)) } == true, "the requested table's total")
        #expect(
            try await database.scalar(
                "SELECT count(*) FROM authlog.events WHERE type = 'audit.accessed' AND data->>'query' LIKE '%format=html'"
            ) == 1
        )
        let stored = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-evidence-real.html").path
        try Data(page.utf8).write(to: URL(fileURLWithPath: stored))
        print("evidence page: \(stored)")
    }
}
