public import AuthlogCore
public import AuthlogStore
import Foundation

/// A ``Report`` as an aligned table for people, CSV, or JSON (the CLI's `--format json` and the body of
/// `GET /v1/reports/{kind}`).
public enum ReportText {
    /// Title, header, rows and a total row; text left-aligned, numbers right-aligned; notes below.
    public static func table(_ report: Report) -> String {
        let header = report.header
        let cells = report.rows.map { $0.keys + $0.values.map(String.init) }
        let totalCells =
            (report.dimensions.isEmpty ? [] : ["total"] + Array(repeating: "", count: report.dimensions.count - 1))
            + report.total.map(String.init)
        let widths = header.indices.map { column in
            ([header[column], totalCells[column]] + cells.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ row: [String]) -> String {
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column < report.dimensions.count ? cell + padding : padding + cell
            }
            .joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        var output = "\(report.kind.title) from \(report.since) to \(report.until)\n"
        output += line(header) + "\n" + rule + "\n"
        for row in cells { output += line(row) + "\n" }
        if !report.dimensions.isEmpty { output += rule + "\n" }
        output += line(totalCells) + "\n"
        for note in self.notes(report) { output += note + "\n" }
        return output
    }

    /// What a reader must know besides the numbers: counts over dropped months, a widened range.
    public static func notes(_ report: Report) -> [String] {
        var notes: [String] = []
        if let dropped = report.dropped {
            notes.append(
                "Note: events written through \(dropped.throughMonth) were retained until \(dropped.droppedOn) and "
                    + "then dropped by retention; their counts come from the report roll-ups, which retention keeps."
            )
        }
        if let widened = report.widened {
            notes.append(
                "Note: inside the dropped months only whole hours are kept, so this report counts from "
                    + "\(widened.since) to \(widened.until)."
            )
        }
        if let reasonIndex = report.dimensions.firstIndex(of: .reason),
            report.rows.contains(where: { RefusalReason.isRefusal($0.keys.dropFirst(reasonIndex).first ?? "") })
        {
            notes.append(
                "Note: the reasons "
                    + RefusalReason.prefixes.map { $0 + "…" }.joined(separator: ", ")
                    + " count refused requests (every request the aggregated events account for), not events."
            )
        }
        return notes
    }

    /// A header line and one line per group (no total: machines can sum).
    public static func csv(_ report: Report) -> String {
        var output = report.header.joined(separator: ",") + "\n"
        for row in report.rows {
            output += (row.keys.map(Self.csvField) + row.values.map(String.init)).joined(separator: ",") + "\n"
        }
        return output
    }

    /// `{"kind", "since", "until", "by", "columns", "rows": [{…}], "total": {…}, "notes": […]}`; each row
    /// names its dimensions and measures.
    public static func json(_ report: Report) -> JSONValue {
        let header = report.header
        func object(_ keys: [String], _ values: [Int64]) -> JSONValue {
            .object(
                zip(header, keys).map { ($0, JSONValue.string($1)) }
                    + zip(report.kind.measures, values).map { ($0, JSONValue.number(String($1))) }
            )
        }
        return .object([
            ("kind", .string(report.kind.rawValue)),
            ("since", .string(report.since.description)),
            ("until", .string(report.until.description)),
            ("by", .array(report.dimensions.map { .string($0.rawValue) })),
            ("columns", .array(header.map(JSONValue.string))),
            ("rows", .array(report.rows.map { object($0.keys, $0.values) })),
            ("total", object([], report.total)),
            ("notes", .array(self.notes(report).map(JSONValue.string))),
        ])
    }

    private static func csvField(_ text: String) -> String {
        // A cell starting with = + - @ would be a formula in a spreadsheet: quote it behind an apostrophe.
        var text = text
        if let first = text.first, "=+-@\t\r".contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
