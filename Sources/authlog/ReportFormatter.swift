import AuthlogStore
import Foundation

/// Renders a ``SigninReport`` as an aligned table, CSV or JSON.
enum ReportFormatter {
    static let header = ["provider", "succeeded", "failed", "unique_users"]

    static func render(_ report: SigninReport, as format: ReportCommand.Format) -> String {
        switch format {
        case .table: return self.table(report)
        case .csv: return self.csv(report)
        case .json: return self.json(report)
        }
    }

    /// Header, one row per provider, and a total row; text left-aligned, numbers right-aligned.
    static func table(_ report: SigninReport) -> String {
        let rows = (report.rows + [report.total]).map(Self.cells)
        let widths = Self.header.indices.map { column in
            ([Self.header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + padding : padding + cell
            }
            .joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        var output = "Sign-ins from \(report.since) to \(report.until)\n"
        output += line(Self.header) + "\n" + rule + "\n"
        for row in rows.dropLast() { output += line(row) + "\n" }
        output += rule + "\n" + line(rows[rows.count - 1]) + "\n"
        if let note = Self.retentionNote(report) { output += note + "\n" }
        return output
    }

    /// Why a range that reaches into dropped months counts less than happened; nil when it does not.
    static func retentionNote(_ report: SigninReport) -> String? {
        guard let dropped = report.dropped else { return nil }
        return "Note: events written through \(dropped.throughMonth) were retained until \(dropped.droppedOn) and "
            + "then dropped by retention; this report counts only events from \(dropped.keptFrom) on."
    }

    /// A header line and one line per provider (no total: machines can sum).
    static func csv(_ report: SigninReport) -> String {
        var output = Self.header.joined(separator: ",") + "\n"
        for row in report.rows {
            output +=
                Self.cells(row).enumerated().map { $0 == 0 ? Self.csvField($1) : $1 }.joined(separator: ",") + "\n"
        }
        return output
    }

    /// A JSON array with one object per provider.
    static func json(_ report: SigninReport) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = (try? encoder.encode(report.rows)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func cells(_ row: SigninReport.Row) -> [String] {
        [row.provider, String(row.succeeded), String(row.failed), String(row.uniqueUsers)]
    }

    private static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
