import AuthlogCore
import AuthlogCrypto
import AuthlogStore
import Foundation

/// A month's export for tests and benchmarks that exercise retention without exporting: a file holding one
/// placeholder line and a manifest naming the month's positions and the file's SHA-256 (what retention
/// checks is that the file matches its manifest, not what it holds).
public enum PlaceholderExport {
    /// Writes the file and manifest of `month` (`YYYY-MM`) for positions `first`…`last` into `directory`.
    public static func write(month: String, first: Int64, last: Int64, in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let body = Data("placeholder export of \(month)\n".utf8)
        try body.write(to: URL(fileURLWithPath: directory + "/" + ExportManifest.fileName(month: month)))
        let manifest = ExportManifest(
            month: month,
            firstPosition: first,
            lastPosition: last,
            events: last - first + 1,
            file: ExportManifest.fileName(month: month),
            sha256: Hex.encode(SHA256.hash(Array(body))),
            exportedAt: "2026-01-01T00:00:00Z",
            exportedBy: "placeholder"
        )
        try JSONEncoder().encode(manifest).write(
            to: URL(fileURLWithPath: directory + "/" + ExportManifest.manifestName(month: month))
        )
    }
}
