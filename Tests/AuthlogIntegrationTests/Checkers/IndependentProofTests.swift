import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

extension Checkers {
    /// authlog's checkpoints and proofs checked by Go's `golang.org/x/mod/sumdb/note` and `sumdb/tlog`
    /// (Tests/GoCheckers/tlogcheck), which nobody here wrote; the checker also flips a byte in every note, root,
    /// leaf and proof hash and requires each to fail. Under `CI=true` a missing Go toolchain fails the suite.
    @Suite(.enabled(if: TestDatabase.isAvailable && GoChecker.isWanted), .serialized)
    struct IndependentProofTests {
        @Test func everyTreeSizeFromOneTo300() async throws {
            let checker = try await GoChecker.build()
            let database = try await TestDatabase.make()
            let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 3))
            let signer = try NoteSigner(name: "authlog.test/log", key: try PrivateKey.generate(for: .edDSA))
            let checkpointer = Checkpointer(store: store, signer: signer, directory: nil)
            var notes: [String] = []
            var traffic = TrafficGenerator(seed: 11)
            for _ in 0..<6 {
                try await store.append(AppendCommand(events: Array(traffic.events(count: 49).prefix(49))))
                notes.append(try await checkpointer.signNow().note)  // 49 + 1 events per round: sizes 49, 99, …
            }
            try await store.sealPending()
            let connection = try await database.connect()
            let size = try await EventReader().head(on: connection).size
            #expect(size == 300)
            let digests = try await self.digests(on: connection)
            var random = SeededRandom(seed: 300)
            var inclusion: [JSONValue] = []
            var consistency: [JSONValue] = []
            for treeSize in Int64(1)...size {
                var positions: Set<Int64> = [1, treeSize, (treeSize + 1) / 2]
                if treeSize <= 40 { positions.formUnion(1...treeSize) }
                for _ in 0..<3 { positions.insert(Int64.random(in: 1...treeSize, using: &random)) }
                for position in positions.sorted() {
                    let proof = try await LogProofs.inclusion(position: position, treeSize: treeSize, on: connection)
                    inclusion.append(Self.json(proof, digest: digests[position]))
                }
                var froms: Set<Int64> = [1, treeSize, max(1, treeSize - 1)]
                if treeSize <= 40 { froms.formUnion(1...treeSize) }
                for _ in 0..<3 { froms.insert(Int64.random(in: 1...treeSize, using: &random)) }
                for from in froms.sorted() {
                    consistency.append(
                        Self.json(try await LogProofs.consistency(from: from, to: treeSize, on: connection))
                    )
                }
            }
            let output = try await checker.check(
                verifierKey: signer.verifier.verifierKey,
                notes: notes,
                inclusion: inclusion,
                consistency: consistency
            )
            print("tlogcheck, sizes 1…300: \(output)")
            #expect(output.hasPrefix("notes 6 (flipped"))
            #expect(output.contains("inclusion \(inclusion.count) ("))
            #expect(output.contains("consistency \(consistency.count) ("))
        }

        @Test func randomTreeSizesUpTo100000() async throws {
            let checker = try await GoChecker.build()
            let database = try await TestDatabase.make()
            // 100,000 committed rows made with SQL (their digests are random: proofs do not read the contents),
            // queued as the writers queue them, then sealed by the sealer.
            try await database.connect().execute(
                """
                INSERT INTO authlog.event_records (event_id, stream, stream_version, type, occurred_at, recorded_at,
                    outcome, reason, provider, data, schema_version, digest, log_month)
                SELECT gen_random_uuid(), 'signin-apple', n, 'signin.failed', now(), now(), 'failure', 'expired', 'apple',
                       '{"reason": "expired"}', 1, sha256(n::text::bytea), (SELECT month FROM authlog.log_epoch)
                FROM generate_series(1, 100000) AS n;
                INSERT INTO authlog.unsealed_events (event_id, digest)
                SELECT event_id, digest FROM authlog.event_records ORDER BY stream_version
                """
            )
            let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 2))
            try await store.sealPending()
            let connection = try await database.connect()
            #expect(try await EventReader().head(on: connection).size == 100_000)
            var random = SeededRandom(seed: 100_000)
            var inclusion: [JSONValue] = []
            var consistency: [JSONValue] = []
            for _ in 0..<150 {
                let treeSize = Int64.random(in: 1...100_000, using: &random)
                let position = Int64.random(in: 1...treeSize, using: &random)
                inclusion.append(
                    Self.json(
                        try await LogProofs.inclusion(position: position, treeSize: treeSize, on: connection),
                        digest: nil
                    )
                )
                let from = Int64.random(in: 1...treeSize, using: &random)
                consistency.append(Self.json(try await LogProofs.consistency(from: from, to: treeSize, on: connection)))
            }
            let output = try await checker.check(
                verifierKey: "",
                notes: [],
                inclusion: inclusion,
                consistency: consistency
            )
            print("tlogcheck, random sizes up to 100,000: \(output)")
            #expect(output.contains("inclusion 150 ("))
            #expect(output.contains("consistency 150 ("))
        }

        private func digests(on connection: Connection) async throws -> [Int64: [UInt8]] {
            var digests: [Int64: [UInt8]] = [:]
            for event in try await EventReader().events(after: 0, limit: 1000, on: connection) {
                digests[event.position] = event.digest
            }
            return digests
        }

        private static func json(_ proof: LogProofs.Inclusion, digest: [UInt8]?) -> JSONValue {
            guard let digest, case .object(var members) = proof.json else { return proof.json }
            members.append(("digest", .string(Data(digest).base64EncodedString())))
            return .object(members)
        }

        private static func json(_ proof: LogProofs.Consistency) -> JSONValue { proof.json }
    }
}

/// The Go checker, built once per test from Tests/GoCheckers/tlogcheck with Debian's Go packages, offline.
struct GoChecker {
    /// Whether the checker can run here (``GoProgram/isWanted(for:)``).
    static var isWanted: Bool { GoProgram.isWanted(for: "the Go proof checks") }

    let executable: URL

    /// Why the checker refused.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Builds the checker into a temporary directory.
    static func build() async throws -> GoChecker {
        GoChecker(executable: try await GoProgram.build("tlogcheck"))
    }

    /// Runs the checker over the notes and proofs; returns its summary line, or throws with its complaint.
    func check(
        verifierKey: String,
        notes: [String],
        inclusion: [JSONValue],
        consistency: [JSONValue]
    ) async throws
        -> String
    {
        let input = JSONValue.object([
            ("verifier_key", .string(verifierKey)), ("notes", .array(notes.map { .string($0) })),
            ("inclusion", .array(inclusion)), ("consistency", .array(consistency)),
        ])
        let result = try await Self.run(
            self.executable.path,
            [],
            in: self.executable.deletingLastPathComponent(),
            environment: [:],
            input: Data(input.canonicalBytes)
        )
        guard result.status == 0 else { throw Failure(description: "tlogcheck refused: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func run(
        _ path: String,
        _ arguments: [String],
        in directory: URL,
        environment: [String: String],
        input: Data
    ) async throws -> ChildProcess.Output {
        try await ChildProcess.run(
            path,
            arguments,
            environment: environment.isEmpty ? nil : environment,
            in: directory,
            input: input
        )
    }
}
