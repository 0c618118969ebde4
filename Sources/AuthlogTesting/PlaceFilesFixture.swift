public import Foundation
import Testing

/// MaxMind DB files written at test time by MaxMind's own Perl writer (Debian's libmaxmind-db-writer-perl,
/// `Tests/AuthlogPlacesTests/Fixtures/write-mmdb.pl`): no hand-made binary blobs. Under `CI=true` a missing writer fails the test;
/// elsewhere the test is skipped with a note.
public struct PlaceFilesFixture: Sendable {
    /// The folder the files are in.
    public let directory: URL
    /// The city file's path (GeoLite2-City layout).
    public var city: String { self.directory.appendingPathComponent("city.mmdb").path }
    /// The ASN file's path.
    public var asn: String { self.directory.appendingPathComponent("asn.mmdb").path }

    static let script = RepositoryFiles.url("Tests/AuthlogPlacesTests/Fixtures/write-mmdb.pl").path

    /// Whether the writer can run here.
    public static var writerIsInstalled: Bool {
        (try? Self.run(["perl", "-MMaxMind::DB::Writer::Tree", "-e", "1"])) == 0
    }

    /// Writes the city and ASN files into a new temporary folder; nil (after recording why, under CI) when the
    /// writer is missing.
    public static func make() throws -> PlaceFilesFixture? {
        guard Self.writerIsInstalled else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("libmaxmind-db-writer-perl is missing: .ci/install-deps --tests installs it")
            }
            return nil
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-places-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fixture = PlaceFilesFixture(directory: directory)
        try fixture.write(city: fixture.city, asn: fixture.asn)
        return fixture
    }

    /// Writes the files at these paths; `moved` places the Seoul networks in Busan.
    public func write(city: String, asn: String, moved: Bool = false) throws {
        let status = try Self.run(["perl", Self.script, city, asn] + (moved ? ["moved"] : []))
        guard status == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Deletes the folder.
    public func remove() { try? FileManager.default.removeItem(at: self.directory) }

    private static func run(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
