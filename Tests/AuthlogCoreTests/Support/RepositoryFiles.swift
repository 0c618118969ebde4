import AuthlogCore
import Foundation

/// Files of the repository that the rule tests read by path: the fixtures under `Tests/AuthlogCoreTests/Fixtures`
/// and the documentation under `docs`.
enum RepositoryFiles {
    /// `Tests/AuthlogCoreTests`, found from this file's own path.
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    /// The repository's root.
    static let root = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()

    /// The text of the fixture at `path` (relative to `Fixtures`).
    static func fixture(_ path: String) throws -> String {
        try String(contentsOf: testsDirectory.appendingPathComponent("Fixtures/" + path), encoding: .utf8)
    }

    /// The fixture at `path`, parsed as JSON.
    static func fixtureJSON(_ path: String) throws -> JSONValue {
        try JSONParser().parse(Array(try fixture(path).utf8))
    }

    /// The text of `docs/<name>`.
    static func document(_ name: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent("docs/" + name), encoding: .utf8)
    }
}

/// The tables of a Markdown document, for tests that hold a document to the code.
enum MarkdownTables {
    /// The body rows of the first table after the heading `heading` (a line such as `## OCSF`), each as its
    /// cells with the surrounding spaces trimmed; empty when there is no such heading or table.
    static func firstTable(after heading: String, in text: String) -> [[String]] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: heading) else { return [] }
        var rows: [[String]] = []
        var inTable = false
        for line in lines[(start + 1)...] {
            if line.hasPrefix("## ") { break }
            if line.hasPrefix("|") {
                inTable = true
                rows.append(Self.cells(of: line))
            } else if inTable {
                break
            }
        }
        // The header row and the `| --- |` rule are not data.
        return Array(rows.dropFirst(2))
    }

    /// The cells of one table row.
    static func cells(of line: String) -> [String] {
        var parts = line.split(separator: "|", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        if parts.first == "" { parts.removeFirst() }
        if parts.last == "" { parts.removeLast() }
        return parts
    }

    /// The texts written in backticks in `cell`, in order.
    static func codeSpans(in cell: String) -> [String] {
        let pieces = cell.split(separator: "`", omittingEmptySubsequences: false)
        return stride(from: 1, to: pieces.count, by: 2).map { String(pieces[$0]) }
    }
}
