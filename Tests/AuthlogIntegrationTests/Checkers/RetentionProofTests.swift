import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

extension Checkers {
    /// After retention drops the oldest months, the retained log still proves: roots at every retained size are
    /// the ones computed before the drop, Go's tlog checks inclusion and consistency proofs, verify passes from
    /// the anchor, and what was dropped is refused as dropped. Its tiles are tlog-tiles' pruned log: the minimum
    /// index is the last dropped position, every tile and bundle reaching past it is written (the straddling ones
    /// from the anchor's tile edge), and Go's tile checker, which hashes every full tile against its parent and
    /// rebuilds the root, proves every entry from the minimum index on from the tiles alone.
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct RetentionProofTests {
        /// Appends `count` failed sign-ins in the log's current month and waits until they are sealed.
        private func write(_ count: Int, _ database: TestDatabase) async throws {
            let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 4))
            let results = await store.appendSealed((0..<count).map { _ in AppendCommand(failedSignin()) })
            for result in results { _ = try result.get() }
        }

        @Test func theRetainedLogProvesAndVerifiesFromTheAnchor() async throws {
            let database = try await TestDatabase.make()
            let owner = try await database.connect()
            try await owner.execute(
                """
                SELECT authlog.create_log_partitions('2024-01-01', '2024-02-01');
                UPDATE authlog.log_epoch SET month = '2024-01-01'
                """
            )
            try await self.write(3000, database)
            try await owner.execute("UPDATE authlog.log_epoch SET month = '2024-02-01'")
            try await self.write(2003, database)
            try await LogMonths.prepare(on: owner)
            try await self.write(997, database)
            let head = try await EventReader().head(on: owner)
            #expect(head.size == 6000)
            let signer = try NoteSigner(name: "retention.test/log", key: try PrivateKey.generate(for: .edDSA))
            let note = try signer.sign(Checkpoint(origin: signer.name, size: head.size, root: head.root).body)
            try await owner.query(
                """
                INSERT INTO authlog.checkpoints (tree_size, root, key_name, note, signed_at)
                SELECT size, root, 'retention.test/log', \(note), now() FROM authlog.log_head
                """
            )
            var random = SeededRandom(seed: 5003)
            var rootsBefore: [Int64: [UInt8]] = [:]
            for size in [Int64(5003), 5004, 5120, 6000]
                + (0..<20).map({ _ in Int64.random(in: 5003...6000, using: &random) })
            {
                rootsBefore[size] = try await LogProofs.root(size: size, on: owner)
            }

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-rp-\(UUID())").path
            try PlaceholderExport.write(month: "2024-01", first: 1, last: 3000, in: directory)
            try PlaceholderExport.write(month: "2024-02", first: 3001, last: 5003, in: directory)
            let plan = try await Retention.plan(keepMonths: 12, exportDirectory: directory, on: owner)
            #expect(plan.droppable.prefix(2).map(\.month) == ["2024-01", "2024-02"])
            #expect(try await Retention.apply(plan, actor: "test", on: owner))
            let anchor = try #require(try await LogAnchor.latest(on: owner))
            #expect(anchor.size == 5003 && anchor.minimumIndex == 5003)
            #expect(anchor.edge?.digests.count == 5003 % 256, "the dropped entries of the bundle holding 5003")
            #expect(anchor.edge?.hashes.map(\.count) == [5003 / 256], "the dropped hashes of tile 1/000")
            #expect(try await database.scalar("SELECT count(*) FROM authlog.log_leaves") == 997)

            for (size, root) in rootsBefore {
                #expect(try await LogProofs.root(size: size, on: owner) == root, "the root at \(size) is unchanged")
            }
            let dropped = await #expect(throws: StoreError.self) {
                try await LogProofs.inclusion(position: 5003, treeSize: nil, on: owner)
            }
            #expect(dropped?.code == .dropped)
            let before = await #expect(throws: StoreError.self) {
                try await LogProofs.consistency(from: 4000, to: 6000, on: owner)
            }
            #expect(before?.code == .dropped)

            // Before the run is on the record, its anchor proves nothing: anyone who owns the database could have
            // written it (and dropped or changed every event below it).
            let unrecorded = try await LogVerifier().verify(on: owner)
            #expect(
                unrecorded.summary(keyName: nil).contains(
                    "the retention anchor at 5003 (authlog.log_retention) is on no record"
                ),
                "\(unrecorded)"
            )
            // What `authlog retention apply` does next: the run's audit.retention_applied, sealed.
            let recording = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 1))
            for payload in try await Retention.unrecorded(on: owner) {
                let event = try EventEnvelope(payload, stream: StreamName(category: "audit", id: "retention"))
                _ = try await recording.appendSealed([AppendCommand(event)]).first?.get()
            }
            let recorded = try await EventReader().head(on: owner)
            let uncovered = try await LogVerifier().verify(on: owner)
            #expect(uncovered.summary(keyName: nil).contains("after the last signed checkpoint (6000)"), "\(uncovered)")
            // A checkpoint that covers the record (signed as the scheduler signs them).
            let covering = try signer.sign(
                Checkpoint(origin: signer.name, size: recorded.size, root: recorded.root).body
            )
            try await owner.query(
                """
                INSERT INTO authlog.checkpoints (tree_size, root, key_name, note, signed_at)
                SELECT size, root, 'retention.test/log', \(covering), now() FROM authlog.log_head
                """
            )
            let verified = try await LogVerifier().verify(on: owner)
            #expect(
                verified == .intact(events: 998, root: recorded.root, checkpoints: 2, droppedThrough: 5003),
                "verify walks from the anchor, and the checkpoints at 6000 and 6001 prove it: \(verified)"
            )
            #expect(verified.summary(keyName: nil).contains("998 events from position 5004 (retention dropped 1…5003"))

            let rebuild = await #expect(throws: StoreError.self) { try await ProjectionRebuilder().check(on: owner) }
            #expect(rebuild?.code == .dropped, "projections are not rebuilt from the retained events alone")

            // The tiles of the pruned log as static files: a full tile that ends at or below 5003 is left out;
            // the ones that straddle it, and everything after, are there.
            let tiles = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-rt-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: tiles) }
            #expect(try await TileDirectory(path: tiles).update(on: owner) > 0)
            let written = Set(try FileManager.default.subpathsOfDirectory(atPath: tiles))
            #expect(
                written.isSuperset(of: ["tile/0/019", "tile/entries/019", "tile/0/023.p/113", "tile/1/000.p/23"]),
                "the straddling tiles and the right edge"
            )
            #expect(!written.contains("tile/0/018") && !written.contains("tile/entries/018"), "ends at 4864 ≤ 5003")
            #expect(
                try String(contentsOfFile: tiles + "/minimum-index", encoding: .utf8) == "5003\n",
                "the minimum index is published beside the tiles"
            )
            if TileChecker.isWanted {
                let checked = try await TileChecker.build().run(["-dir", tiles, "-vkey", signer.verifier.verifierKey])
                print("tilecheck after retention: \(checked.stdout)")
                #expect(checked.status == 0, "\(checked.stderr)")
                #expect(checked.stdout.hasPrefix("size 6001 from minimum index 5003: "), "\(checked.stdout)")
                #expect(checked.stdout.contains(" 1137 entries rehashed"), "from the bundle holding 5003: 4864…6000")
                // A byte of a dropped entry kept in the edge, flipped on disk, is refused.
                let straddling = tiles + "/tile/entries/019"
                var bytes = try Data(contentsOf: URL(fileURLWithPath: straddling))
                bytes[50] ^= 0x01
                try bytes.write(to: URL(fileURLWithPath: straddling))
                let refused = try await TileChecker.build().run(["-dir", tiles, "-vkey", signer.verifier.verifierKey])
                #expect(refused.status == 1, "\(refused.stdout)")
            }

            guard GoChecker.isWanted else { return }
            let checker = try await GoChecker.build()
            var inclusion: [JSONValue] = []
            var consistency: [JSONValue] = []
            for _ in 0..<100 {
                let treeSize = Int64.random(in: 5004...6000, using: &random)
                let position = Int64.random(in: 5004...treeSize, using: &random)
                inclusion.append(try await LogProofs.inclusion(position: position, treeSize: treeSize, on: owner).json)
                let from = Int64.random(in: 5003...treeSize, using: &random)
                consistency.append(try await LogProofs.consistency(from: from, to: treeSize, on: owner).json)
            }
            let output = try await checker.check(
                verifierKey: "",
                notes: [],
                inclusion: inclusion,
                consistency: consistency
            )
            print("tlogcheck after retention: \(output)")
            #expect(output.contains("inclusion 100 ("))
            #expect(output.contains("consistency 100 ("))
        }
    }
}
