import Foundation

/// What `authlog export --month` writes next to a month's export file, and what retention checks before it
/// drops the month: which positions the file holds and the SHA-256 of its bytes.
public struct ExportManifest: Codable, Sendable, Equatable {
    /// The manifest's format name.
    public static let formatName = "authlog-export-month-1"

    /// ``formatName``.
    public var format: String
    /// The month (`YYYY-MM`).
    public var month: String
    /// The first and last position the file holds (0 and 0 for a month without events).
    public var firstPosition: Int64
    public var lastPosition: Int64
    /// How many events (lines) the file holds.
    public var events: Int64
    /// The export file's name, in the manifest's directory.
    public var file: String
    /// Hex SHA-256 of the export file.
    public var sha256: String
    /// When it was written (ISO 8601) and by whom (`os:USER@HOST`).
    public var exportedAt: String
    public var exportedBy: String

    /// Creates a manifest.
    public init(
        month: String,
        firstPosition: Int64,
        lastPosition: Int64,
        events: Int64,
        file: String,
        sha256: String,
        exportedAt: String,
        exportedBy: String
    ) {
        self.format = Self.formatName
        self.month = month
        self.firstPosition = firstPosition
        self.lastPosition = lastPosition
        self.events = events
        self.file = file
        self.sha256 = sha256
        self.exportedAt = exportedAt
        self.exportedBy = exportedBy
    }

    private enum CodingKeys: String, CodingKey {
        case format, month, events, file, sha256
        case firstPosition = "first_position"
        case lastPosition = "last_position"
        case exportedAt = "exported_at"
        case exportedBy = "exported_by"
    }

    /// The export file's name for `month`.
    public static func fileName(month: String) -> String { "authlog-events-\(month).jsonl" }

    /// The manifest's file name for `month`.
    public static func manifestName(month: String) -> String { "authlog-events-\(month).manifest.json" }

    /// The manifests in `directory` (files ending `.manifest.json` that decode as one), by month.
    public static func load(from directory: String) -> [String: ExportManifest] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var manifests: [String: ExportManifest] = [:]
        for name in names where name.hasSuffix(".manifest.json") {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name),
                let manifest = try? JSONDecoder().decode(ExportManifest.self, from: data),
                manifest.format == Self.formatName
            else { continue }
            manifests[manifest.month] = manifest
        }
        return manifests
    }
}
