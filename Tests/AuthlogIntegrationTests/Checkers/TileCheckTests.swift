import AuthlogCore
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

extension Checkers {
    /// authlog's tiles read over HTTP by Go's golang.org/x/mod/sumdb/tlog and sumdb/note (Tests/GoCheckers/tilecheck),
    /// which nobody here wrote: the checkpoint verifies, inclusion and consistency proofs computed from tiles check,
    /// every full tile hashes to its parent, the root rebuilds from the right edge, and the entry bundles rehash to
    /// the leaves; and a byte flipped in any tile or bundle fails the check. Under `CI=true` a missing Go toolchain
    /// fails the suite.
    @Suite(.enabled(if: TestDatabase.isAvailable && TileChecker.isWanted), .serialized)
    struct TileCheckTests {
        @Test func goReadsTheTreeFromTilesAndRefusesAFlippedByte() async throws {
            let checker = try await TileChecker.build()
            try await ServerHarness.run(adjust: TileRouteTests.unlimited) { harness in
                var random = SeededRandom(seed: 21)
                try await harness.database.seedSealedEvents(Int64.random(in: 600...700, using: &random))
                let (old, signer) = try await TileRouteTests.sign(harness)
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "tilecheck-\(UUID().uuidString)"
                )
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                let oldNote = folder.appendingPathComponent("old.note")
                try Data(old.note.utf8).write(to: oldNote)
                try await harness.database.seedSealedEvents(70_000 - old.size - 1)
                let checkpointer = Checkpointer(
                    store: harness.components.store,
                    signer: signer,
                    directory: nil
                )
                let signed = try await checkpointer.signNow()
                #expect(signed.size == 70_000)
                let base = harness.client.baseURL
                let arguments = ["-url", base, "-vkey", signer.verifier.verifierKey, "-old", oldNote.path]
                let clean = try await checker.run(arguments)
                print("tilecheck: \(clean.stdout)")
                #expect(clean.status == 0, "\(clean.stderr)")
                #expect(clean.stdout.hasPrefix("size 70000: 274 full tiles against their parents, root rebuilt, 70000"))
                // A full tile off every proof path, the right-edge tiles, the entry bundles and the checkpoint.
                let flips = [
                    "tile/0/005", "tile/0/272", "tile/0/273.p/112", "tile/1/000", "tile/1/001.p/17", "tile/2/000.p/1",
                    "tile/entries/100", "tile/entries/273.p/112", "checkpoint",
                ]
                for path in flips {
                    let flipped = try await checker.run(arguments + ["-flip", path])
                    #expect(flipped.status == 1, "a flipped byte in \(path) passed: \(flipped.stdout)")
                    #expect(flipped.stderr.hasPrefix("tilecheck: "), "\(path): \(flipped.stderr)")
                }

                // The same tree as static files (log.tile_directory) behind Go's plain file server; then one byte of
                // a full tile changed on disk is refused.
                let tiles = folder.appendingPathComponent("tiles")
                let written = try await TileDirectory(path: tiles.path).update(on: try await harness.database.connect())
                #expect(
                    written == 274 + 274 + 2 + 1 + 1 + 1,
                    "every tile, bundle, the minimum index and the checkpoint at once"
                )
                let fromFiles = ["-dir", tiles.path, "-vkey", signer.verifier.verifierKey, "-old", oldNote.path]
                let statically = try await checker.run(fromFiles)
                #expect(statically.status == 0, "\(statically.stderr)")
                #expect(statically.stdout == clean.stdout, "the files are the tree the routes serve")
                let tampered = tiles.appendingPathComponent("tile/0/010")
                var bytes = try Data(contentsOf: tampered)
                bytes[100] ^= 0x80
                try bytes.write(to: tampered)
                let refused = try await checker.run(fromFiles)
                #expect(
                    refused.status == 1 && refused.stderr.contains("full tile 0/10 does not hash"),
                    "\(refused.stderr)"
                )
            }
        }
    }
}

/// Tests/GoCheckers/tilecheck, built once per test with Debian's Go packages, offline.
struct TileChecker {
    /// Whether the checker can run here (``GoProgram/isWanted(for:)``).
    static var isWanted: Bool { GoProgram.isWanted(for: "the Go tile checks") }

    let executable: URL

    /// Builds the checker into a temporary directory.
    static func build() async throws -> TileChecker {
        TileChecker(executable: try await GoProgram.build("tilecheck"))
    }

    /// Runs the checker; its exit status and output.
    func run(_ arguments: [String]) async throws -> ChildProcess.Output {
        try await ChildProcess.run(self.executable.path, arguments, environment: ["PATH": "/usr/bin:/bin"])
    }
}
