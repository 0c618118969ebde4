import AuthlogCore
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// `authlog report failures` shows the refused requests that a few aggregated events account for, in every
/// format and on the evidence page, over a range whose edges cut hours.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct RefusalReportCommandTests {
    @Test func theFailuresReportCountsEveryRefusedRequestInEveryFormat() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 33)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        try await store.append(AppendCommand(events: traffic.events(count: 600) + RefusalFixtures.events()))
        try await store.sealPending()
        let since = RefusalFixtures.since
        let until = RefusalFixtures.until
        let signinFailures = try await database.scalar(
            """
            SELECT count(*) FROM authlog.events
            WHERE type = 'signin.failed' AND occurred_at >= \(since)::timestamptz AND occurred_at < \(until)::timestamptz
            """
        )
        let total = signinFailures + RefusalFixtures.expectedInRange.values.reduce(0, +)
        #expect(total == signinFailures + 5_046)
        let arguments = ["report", "failures", "--since", since, "--until", until]

        let json = try await CLIProcess.run(arguments + ["--format", "json"], databaseURL: database.conninfo)
        #expect(json.status == 0, "\(json.stderr)")
        let document = try JSONParser().parse(json.stdout)
        let rows = try #require(document["rows"]?.arrayValue)
        var byReason: [String: Int64] = [:]
        for row in rows {
            byReason[row["reason"]?.stringValue ?? ""] = row["failed"]?.integerValue
        }
        for (reason, count) in RefusalFixtures.expectedInRange {
            #expect(byReason[reason] == count, "\(reason): \(json.stdout)")
        }
        #expect(document["total"]?["failed"]?.integerValue == total)
        #expect(document["notes"]?.arrayValue?.count == 1, "the note on refused requests")

        let csv = try await CLIProcess.run(arguments + ["--format", "csv"], databaseURL: database.conninfo)
        #expect(csv.status == 0, "\(csv.stderr)")
        let csvLines = Set(csv.stdout.split(separator: "\n").map(String.init))
        for (reason, count) in RefusalFixtures.expectedInRange {
            #expect(csvLines.contains("\(reason),\(count)"), "\(csv.stdout)")
        }

        let table = try await CLIProcess.run(arguments, databaseURL: database.conninfo)
        #expect(table.status == 0, "\(table.stderr)")
        let cells = table.stdout.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        }
        #expect(table.stdout.hasPrefix("Failed sign-ins and refused requests from "))
        for (reason, count) in RefusalFixtures.expectedInRange {
            #expect(cells.contains([reason, String(count)]), "\(table.stdout)")
        }
        #expect(cells.contains(["total", String(total)]))
        #expect(table.stdout.contains("count refused requests"))

        let html = try await CLIProcess.run(arguments + ["--format", "html"], databaseURL: database.conninfo)
        #expect(html.status == 0, "\(html.stderr)")
        let page = html.stdout
        let start = try #require(page.range(of: "<table id=\"table-failures\"")).lowerBound
        let end = try #require(page[start...].range(of: "</table>")).upperBound
        let failuresTable = page[start..<end]
        #expect(
            failuresTable.contains(
                "<tr><td class=\"key\">rate_limited:signin</td><td class=\"num\">5,000</td></tr>"
            ),
            "the failures table"
        )
        #expect(page.contains("<span class=\"stat-value\">5,046</span><span class=\"stat-label\">requests refused"))
        #expect(page.contains(">rate_limited:signin</text>"), "a bar of the failures chart")
        #expect(page.contains(">5,000</text>"))
        #expect(failuresTable.contains("<td class=\"num\">\(Self.grouped(total))</td></tr></tfoot>"), "the total")
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ value: Int64) -> String {
        var digits = Array(String(value))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return String(digits)
    }
}
