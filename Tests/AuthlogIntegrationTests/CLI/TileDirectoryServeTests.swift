import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// `serve` with `log.tile_directory` writes the tree of its latest checkpoint as tlog-tiles files, the same
/// bytes as its `/checkpoint` and `/tile/…` routes serve.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct TileDirectoryServeTests {
    @Test func serveWritesTheTilesItServes() async throws {
        let database = try await TestDatabase.make()
        try await database.seedSealedEvents(600)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-tiles-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let keys = folder.appendingPathComponent("keys").path
        let generated = try await CLIProcess.run(
            ["keys", "generate", "--out", keys, "--origin", "auth.test/log"],
            databaseURL: "postgresql:///unused"
        )
        #expect(generated.status == 0, "\(generated.stderr)")
        let tiles = folder.appendingPathComponent("tiles")
        let configuration = JSONValue.object([
            (
                "log",
                .object([
                    ("origin", .string("auth.test/log")),
                    ("checkpoint_key_file", .string("\(keys)/checkpoint-ed25519.pem")),
                    ("checkpoint_every_events", .number("10")), ("checkpoint_every_seconds", .number("3600")),
                    ("tile_directory", .string(tiles.path)),
                ])
            )
        ])
        let server = try await ServeProcess.start(database: database, configuration: configuration)
        defer { server.stop() }
        let client = HTTPTestClient(baseURL: server.baseURL)
        let checkpointFile = tiles.appendingPathComponent("checkpoint")
        let deadline = ContinuousClock.now + .seconds(30)
        while !FileManager.default.fileExists(atPath: checkpointFile.path), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let note = try String(contentsOf: checkpointFile, encoding: .utf8)
        #expect(note.hasPrefix("auth.test/log\n600\n"), "\(note)")
        #expect(Array(note.utf8) == (try await client.send("GET", "/checkpoint")).body)
        let enumerator = FileManager.default.enumerator(atPath: tiles.path)
        var files: [String] = []
        while let next = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(
                atPath: tiles.appendingPathComponent(next).path,
                isDirectory: &isDirectory
            ),
                !isDirectory.boolValue
            {
                files.append(next)
            }
        }
        #expect(
            files.sorted() == [
                "checkpoint", "minimum-index", "tile/0/000", "tile/0/001", "tile/0/002.p/88", "tile/1/000.p/2",
                "tile/entries/000", "tile/entries/001", "tile/entries/002.p/88",
            ]
        )
        for file in files where file != "checkpoint" {
            let served = try await client.send("GET", "/" + file)
            let written = try Data(contentsOf: tiles.appendingPathComponent(file))
            #expect(served.status == 200 && served.body == Array(written), "\(file)")
        }
    }
}
