import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Synchronization
import Testing

/// `GET /checkpoint`, `/tile/<L>/<N>[.p/<W>]` and `/tile/entries/<N>[.p/<W>]` (c2sp.org/tlog-tiles): bytes,
/// statuses, caching; public reads are rate-limited per address.
@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct TileRouteTests {
    /// A harness whose public log reads are not limited (the harness's default).
    static func unlimited(_ configuration: inout ServerConfiguration) {
        configuration.rateLimits = try? JSONValue.members(["enabled": .bool(false)]).decode(
            ServerConfiguration.RateLimitSettings.self
        )
    }

    /// The log's checkpoint key in these tests: one key, as a signer refuses checkpoints of another key.
    static let checkpointKey = Result { try PrivateKey.generate(for: .edDSA) }

    /// Signs a checkpoint of the sealed log now.
    static func sign(_ harness: ServerHarness) async throws -> (Checkpointer.Signed, NoteSigner) {
        let signer = try NoteSigner(name: "authlog.test/log", key: try Self.checkpointKey.get())
        let checkpointer = Checkpointer(store: harness.components.store, signer: signer, directory: nil)
        return (try await checkpointer.signNow(), signer)
    }

    @Test func tilesAreTheTreesHashesWithTheSpecsStatusesAndCaching() async throws {
        try await ServerHarness.run(adjust: Self.unlimited) { harness in
            try await harness.database.seedSealedEvents(600)
            let (signed, _) = try await Self.sign(harness)
            #expect(signed.size == 600)
            let checkpoint = try await harness.client.send("GET", "/checkpoint")
            #expect(checkpoint.status == 200 && checkpoint.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(checkpoint.body == Array(signed.note.utf8))
            #expect(checkpoint.body == (try await harness.client.send("GET", "/v1/log/checkpoint")).body)

            let leaves = try await harness.database.connect().query(
                "SELECT leaf_hash FROM authlog.log_leaves WHERE position BETWEEN 1 AND 256 ORDER BY position"
            )
            let expected = try leaves.rows.flatMap { try $0.decode(ByteaValue.self, at: 0).bytes }
            let full = try await harness.client.send("GET", "/tile/0/000")
            #expect(full.status == 200 && full.body == expected && full.body.count == 8192)
            #expect(full.header("Content-Type") == "application/octet-stream")
            #expect(full.header("Cache-Control") == "public, max-age=31536000, immutable")
            let partial = try await harness.client.send("GET", "/tile/0/002.p/88")
            #expect(partial.status == 200 && partial.body.count == 88 * 32)
            #expect(partial.header("Cache-Control") == "public, max-age=60")
            let bundle = try await harness.client.send("GET", "/tile/entries/000")
            #expect(bundle.status == 200 && bundle.body.count == 256 * 42)
            #expect(bundle.body.prefix(10) == [0, 40, 0, 0, 0, 0, 0, 0, 0, 1], "uint16 length 40, then position 1")

            // 600 leaves (and the checkpoint's own event, sealed later or not): 2 full level-0 tiles and one of
            // 88 (any smaller width is the same prefix), a level-1 tile of 2, nothing at level 2.
            let statuses: [(String, Int, String?)] = [
                ("/tile/0/001", 200, nil), ("/tile/0/002.p/1", 200, nil), ("/tile/0/002.p/50", 200, nil),
                ("/tile/0/000.p/255", 200, nil), ("/tile/1/000.p/2", 200, nil), ("/tile/entries/002.p/88", 200, nil),
                ("/tile/0/003", 404, "tile_not_found"), ("/tile/0/003.p/1", 404, "tile_not_found"),
                ("/tile/1/000", 404, "tile_not_found"), ("/tile/2/000.p/1", 404, "tile_not_found"),
                ("/tile/63/x009/x223/x372/x036/x854/x775/807", 404, "tile_not_found"),
                ("/tile/entries/x001/000", 404, "tile_not_found"),
                ("/tile/64/000", 400, "invalid_tile_path"), ("/tile/00/000", 400, "invalid_tile_path"),
                ("/tile/0/0000", 400, "invalid_tile_path"), ("/tile/0/x000/001", 400, "invalid_tile_path"),
                ("/tile/0/000.p/0", 400, "invalid_tile_path"), ("/tile/0/000.p/256", 400, "invalid_tile_path"),
                ("/tile/0/000.p/07", 400, "invalid_tile_path"), ("/tile/0/001/", 400, "invalid_tile_path"),
                ("/tile/x/000", 400, "invalid_tile_path"), ("/tile/entries/1", 400, "invalid_tile_path"),
                ("/tile/0/x009/x223/x372/x036/x854/x775/808", 400, "invalid_tile_path"),
                ("/tile/0/" + String(repeating: "x001/", count: 20) + "001", 400, "invalid_tile_path"),
            ]
            for (path, status, error) in statuses {
                let answer = try await harness.client.send("GET", path)
                #expect(answer.status == status, "\(path)")
                if let error { #expect(answer.string("error") == error, "\(path)") }
            }
        }
    }

    /// A full tile is immutable and cached for good, so only what the latest signed checkpoint commits to is
    /// served: a tree of 5,632 sealed events whose checkpoint says 5,523 serves tile 21 only as the checkpoint's
    /// partial tile, until a checkpoint covers it.
    @Test func noTilePastTheSignedCheckpoint() async throws {
        try await ServerHarness.run(adjust: Self.unlimited) { harness in
            #expect(try await harness.client.send("GET", "/tile/0/000.p/1").status == 404, "no checkpoint: no tile")
            try await harness.database.seedSealedEvents(5523)
            let (signed, _) = try await Self.sign(harness)
            #expect(signed.size == 5523)
            try await harness.database.seedSealedEvents(5632 - 5524)
            #expect(try await harness.count("SELECT size FROM authlog.log_head") == 5632)
            let statuses: [(String, Int)] = [
                ("/tile/0/020", 200), ("/tile/0/021.p/147", 200), ("/tile/0/021", 404), ("/tile/0/021.p/148", 404),
                ("/tile/entries/021", 404), ("/tile/entries/021.p/147", 200), ("/tile/1/000.p/21", 200),
                ("/tile/1/000.p/22", 404),
            ]
            for (path, status) in statuses {
                let answer = try await harness.client.send("GET", path)
                #expect(answer.status == status, "\(path)")
                if status == 404 { #expect(answer.string("error") == "tile_not_found", "\(path)") }
            }
            let (again, _) = try await Self.sign(harness)
            #expect(again.size >= 5632)
            let full = try await harness.client.send("GET", "/tile/0/021")
            #expect(full.status == 200 && full.header("Cache-Control") == Self.immutable)
            let minimum = try await harness.client.send("GET", "/minimum-index")
            #expect(minimum.status == 200 && minimum.body == Array("0\n".utf8), "nothing dropped")
            #expect(minimum.header("Content-Type") == "text/plain; charset=utf-8")
        }
    }

    /// The `Cache-Control` of a full tile.
    static let immutable = "public, max-age=31536000, immutable"

    /// `log.tile_directory`'s `checkpoint` is the route's: with the witnesses' cosignatures, written again when one
    /// more arrives.
    @Test func theTileDirectorysCheckpointCarriesTheCosignatures() async throws {
        try await ServerHarness.run(adjust: Self.unlimited) { harness in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tiles-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            try await harness.database.seedSealedEvents(300)
            let (signed, _) = try await Self.sign(harness)
            let directory = TileDirectory(path: folder.path)
            let connection = try await harness.database.connect()
            #expect(try await directory.update(on: connection) > 0)
            let witness = try CosignatureSigner(name: "witness.test/tiles", key: try PrivateKey.generate(for: .edDSA))
            let line = try await harness.storeCosignature(of: signed, by: witness)
            #expect(try await directory.update(on: connection) == 1, "the checkpoint again, with the cosignature")
            let written = try Data(contentsOf: folder.appendingPathComponent("checkpoint"))
            #expect(String(decoding: written, as: UTF8.self) == signed.note + line)
            let served = try await harness.client.send("GET", "/checkpoint")
            #expect(served.body == Array(written), "the same bytes as the route")
            let policy = try WitnessPolicy(witnesses: [witness.verifier], quorum: 1)
            #expect(policy.check(note: String(decoding: written, as: UTF8.self))?.quorumMet == true)
        }
    }

    @Test func proofsAndTilesAppendNoEventAndAreCountedInTheMetrics() async throws {
        try await ServerHarness.run(adjust: Self.unlimited) { harness in
            try await harness.database.seedSealedEvents(300)
            let before = try await harness.count("SELECT count(*) FROM authlog.events")
            let paths = [
                "/v1/log/proof/inclusion?position=3", "/v1/log/proof/inclusion?position=3&tree_size=200",
                "/v1/log/proof/inclusion?position=999999", "/v1/log/proof/consistency?from=5&to=300",
                "/tile/0/000", "/tile/entries/001.p/44", "/tile/0/009",
            ]
            for path in paths { _ = try await harness.client.send("GET", path) }
            #expect(try await harness.count("SELECT count(*) FROM authlog.events") == before)
            #expect(try await harness.count("SELECT count(*) FROM authlog.unsealed_events") == 0)
            let metrics = String(decoding: try await harness.client.send("GET", "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("authlog_log_reads_total{route=\"proof_inclusion\"} 3"))
            #expect(metrics.contains("authlog_log_reads_total{route=\"proof_consistency\"} 1"))
            #expect(metrics.contains("authlog_log_reads_total{route=\"tile\"} 2"))
            #expect(metrics.contains("authlog_log_reads_total{route=\"tile_entries\"} 1"))
        }
    }

    /// events.md promises that anonymous checkpoint reads are counted like proofs and tiles: in /metrics, and per
    /// address and window in one aggregated `audit.accessed` (a first at once, the rest in a summary), never one
    /// event per read.
    @Test func anonymousCheckpointReadsAreCountedAndAggregated() async throws {
        try await ServerHarness.run(adjust: Self.unlimited) { harness in
            try await harness.database.seedSealedEvents(10)
            let before = try await harness.count("SELECT count(*) FROM authlog.events")
            let reader = [("X-Forwarded-For", "203.0.113.44")]
            for index in 0..<30 {
                let path = index.isMultiple(of: 2) ? "/v1/log/checkpoint" : "/checkpoint"
                _ = try await harness.client.send("GET", path, headers: reader)
            }
            let metrics = String(decoding: try await harness.client.send("GET", "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("authlog_log_reads_total{route=\"checkpoint\"} 30"), "\(metrics)")
            try await harness.flushRefusals()
            let reads = try await harness.events(ofType: "audit.accessed").filter { $0.ip == "203.0.113.44" }
            #expect(reads.count == 2, "a window's first read and one summary")
            #expect(reads.map { $0.data["count"]?.integerValue ?? 1 }.reduce(0, +) == 30)
            #expect(reads.allSatisfy { $0.outcome == "success" && $0.data["actor"] == .string("anonymous") })
            #expect(reads.first?.data["query"] == .string("checkpoint"))
            #expect(reads.last?.data["reasons"]?["anonymous_read"]?.integerValue == 29)
            #expect(try await harness.count("SELECT count(*) FROM authlog.events") == before + 2)
        }
    }

    @Test func proofAndTileReadsAreLimitedPerClientAddress() async throws {
        let limited: (inout ServerConfiguration) -> Void = {
            var limits = ServerConfiguration.RateLimitSettings()
            // Answered at once: held for the limit's interval (1 s), the bucket would refill meanwhile.
            limits.maximumRefusalDelayMs = 0
            limits.perAddress = try? JSONValue.members([
                "log_read": .members(["per_second": .number("1"), "burst": .number("3")])
            ])
            .decode(ServerConfiguration.RateLimitSettings.PerAddress.self)
            $0.rateLimits = limits
        }
        // The buckets refill by this clock, which moves only when the test says so: however slowly a loaded
        // machine answers, the fourth read comes within the second.
        let clock = ManualUptime()
        let uptime: @Sendable () -> Double = { clock.now }
        try await ServerHarness.run(adjust: limited, rateLimitUptime: uptime) { harness in
            try await harness.database.seedSealedEvents(10)
            _ = try await Self.sign(harness)
            let one = [("X-Forwarded-For", "203.0.113.9")]
            let paths = [
                "/v1/log/proof/inclusion?position=1", "/tile/0/000.p/10", "/v1/log/proof/consistency?from=1&to=5",
            ]
            for path in paths {
                #expect(try await harness.client.send("GET", path, headers: one).status == 200, "\(path)")
            }
            let refused = try await harness.client.send("GET", "/tile/0/000.p/10", headers: one)
            #expect(refused.status == 429 && refused.string("error") == "rate_limited")
            #expect(refused.header("Retry-After") == "1")
            let proof = try await harness.client.send("GET", "/v1/log/proof/inclusion?position=1", headers: one)
            #expect(proof.status == 429 && proof.string("error") == "rate_limited")
            let another = [("X-Forwarded-For", "203.0.113.10")]
            let other = try await harness.client.send("GET", "/tile/0/000.p/10", headers: another)
            #expect(other.status == 200, "another address has its own bucket")
            let checkpoint = try await harness.client.send("GET", "/v1/log/checkpoint", headers: one)
            #expect(checkpoint.status == 429, "the checkpoint is a log read too")
            clock.advance(by: 1.1)
            #expect(try await harness.client.send("GET", "/tile/0/000.p/10", headers: one).status == 200, "refilled")
            let metrics = String(decoding: try await harness.client.send("GET", "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("authlog_rate_limited_total{scope=\"address\",route=\"log_read\"} 3"))
        }
    }

    @Test func theTileDirectoryHoldsWhatTheRoutesServe() async throws {
        try await ServerHarness.run(adjust: Self.unlimited) { harness in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tiles-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let directory = TileDirectory(path: folder.path)
            let connection = try await harness.database.connect()
            #expect(try await directory.update(on: connection) == 0, "no checkpoint yet: nothing")
            try await harness.database.seedSealedEvents(300)
            _ = try await Self.sign(harness)
            #expect(try await directory.update(on: connection) > 0)
            #expect(try await directory.update(on: connection) == 0, "the same checkpoint again: nothing")
            #expect(try Self.files(in: folder).contains("tile/0/001.p/44"))
            try await harness.database.seedSealedEvents(300)
            #expect(try await directory.update(on: connection) == 0, "sealed past the signed checkpoint: nothing")
            let (signed, _) = try await Self.sign(harness)
            #expect(signed.size == 601)
            #expect(try await directory.update(on: connection) > 0)
            let files = try Self.files(in: folder)
            // 601 leaves: two full level-0 tiles and one of 89, a level-1 tile of 2 (the one of 1 of the first
            // checkpoint stays: its tile is not full yet); the partial tiles of 300 whose full tile exists are gone.
            #expect(
                files == [
                    "checkpoint", "minimum-index", "tile/0/000", "tile/0/001", "tile/0/002.p/89", "tile/1/000.p/1",
                    "tile/1/000.p/2", "tile/entries/000", "tile/entries/001", "tile/entries/002.p/89",
                ]
            )
            for file in files {
                let served = try await harness.client.send("GET", "/" + file)
                let written = try Data(contentsOf: folder.appendingPathComponent(file))
                #expect(served.status == 200 && served.body == Array(written), "\(file)")
            }
        }
    }

    /// tlog-tiles: "Logs MUST serve partial tiles corresponding to tree sizes for which a checkpoint was produced".
    /// Three checkpoints signed between two passes (the writer runs once a second; the signer may sign more
    /// often): the partial tiles of each are written, not only the latest's, with the bytes the routes serve.
    @Test func theTileDirectoryHoldsThePartialTilesOfEveryCheckpointSinceItsLastPass() async throws {
        try await ServerHarness.run(adjust: Self.unlimited) { harness in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tiles-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let directory = TileDirectory(path: folder.path)
            let connection = try await harness.database.connect()
            var sizes: [Int64] = []
            for count: Int64 in [260, 10, 30] {
                try await harness.database.seedSealedEvents(count)
                sizes.append(try await Self.sign(harness).0.size)
            }
            #expect(sizes == [260, 271, 302], "each signing records one event of its own")
            #expect(try await directory.update(on: connection) > 0)
            let files = try Self.files(in: folder)
            // Level 0's second tile at widths 4, 15 and 46 (the first tile is full in all three); level 1's first
            // tile at width 1 (the same in all three).
            #expect(
                files == [
                    "checkpoint", "minimum-index", "tile/0/000", "tile/0/001.p/15", "tile/0/001.p/4",
                    "tile/0/001.p/46", "tile/1/000.p/1", "tile/entries/000", "tile/entries/001.p/15",
                    "tile/entries/001.p/4", "tile/entries/001.p/46",
                ]
            )
            for file in files {
                let served = try await harness.client.send("GET", "/" + file)
                let written = try Data(contentsOf: folder.appendingPathComponent(file))
                #expect(served.status == 200 && served.body == Array(written), "\(file)")
            }
            // A writer started again (serve restarted) finds every tile there: it writes only the two small files.
            #expect(try await TileDirectory(path: folder.path).update(on: connection) == 2)
            #expect(try Self.files(in: folder) == files)
            // The next checkpoint fills the second tile: its partial tiles go, the new size's come.
            try await harness.database.seedSealedEvents(220)
            #expect(try await Self.sign(harness).0.size == 523)
            #expect(try await directory.update(on: connection) > 0)
            #expect(
                try Self.files(in: folder) == [
                    "checkpoint", "minimum-index", "tile/0/000", "tile/0/001", "tile/0/002.p/11", "tile/1/000.p/1",
                    "tile/1/000.p/2", "tile/entries/000", "tile/entries/001", "tile/entries/002.p/11",
                ]
            )
        }
    }

    @Test func aPassCutShortPublishesNoCheckpointUntilItsTilesAreWritten() async throws {
        try await ServerHarness.run(adjust: Self.unlimited) { harness in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tiles-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            try await harness.database.seedSealedEvents(600)
            _ = try await Self.sign(harness)
            let directory = TileDirectory(path: folder.path, tilesPerPass: 2)
            let connection = try await harness.database.connect()
            // The cap is checked before each full tile: the bundles first, then the partial bundle of 600.
            #expect(try await directory.update(on: connection) == 3)
            #expect(
                try Self.files(in: folder) == ["tile/entries/000", "tile/entries/001", "tile/entries/002.p/88"],
                "no checkpoint yet"
            )
            #expect(
                try await directory.update(on: connection) == 6,
                "the hash tiles, then the minimum index and the checkpoint"
            )
            #expect(try await directory.update(on: connection) == 0)
            let files = try Self.files(in: folder)
            #expect(files.count == 9 && files.contains("checkpoint") && files.contains("tile/1/000.p/2"))
        }
    }

    /// Every file below `folder`, as relative paths; temporary files would show up too.
    static func files(in folder: URL) throws -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var files: [String] = []
        while let next = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(
                atPath: folder.appendingPathComponent(next).path,
                isDirectory: &isDirectory
            ),
                !isDirectory.boolValue
            {
                files.append(next)
            }
        }
        return files.sorted()
    }
}

/// A monotonic clock in seconds that moves only when the test moves it, for the rate limits' buckets.
final class ManualUptime: Sendable {
    private let seconds = Mutex(1000.0)

    /// The clock's reading.
    var now: Double { self.seconds.withLock { $0 } }

    /// Moves the clock forward by `delta` seconds.
    func advance(by delta: Double) { self.seconds.withLock { $0 += delta } }
}
