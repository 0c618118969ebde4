import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

/// A tlog-policy quorum of nested groups, on the stored cosignatures: a checkpoint counts as witnessed (for a
/// receipt, and for the witnessed size and age a restarted submitter starts from) only when the cosigning
/// witnesses meet the groups, not when their number reaches the fewest the quorum could need; and the time the
/// quorum was reached is when the cosignature that completed it was stored. The policy names its witnesses
/// apart from their keys' names, as the stored rows do.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct GroupQuorumTests {
    @Test func onlyCosignaturesThatMeetTheGroupsMakeACheckpointWitnessed() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        var traffic = TrafficGenerator(seed: 41)
        try await store.append(AppendCommand(events: traffic.events(count: 6)))
        let log = try NoteSigner(name: "groups.test/log", key: try PrivateKey.generate(for: .edDSA))
        let checkpoint = try await Checkpointer(store: store, signer: log, directory: nil).signNow()
        let witnesses = try ["a", "b", "c", "d"].map {
            try CosignatureSigner(name: "witness.test/\($0)", key: try PrivateKey.generate(for: .edDSA))
        }
        // Either both of A and B, or both of C and D: two cosignatures at least, but not any two.
        let policy = try WitnessPolicy(
            text: """
                witness A \(witnesses[0].verifier.verifierKey)
                witness B \(witnesses[1].verifier.verifierKey)
                witness C \(witnesses[2].verifier.verifierKey)
                witness D \(witnesses[3].verifier.verifierKey)
                group AB all A B
                group CD all C D
                group either any AB CD
                quorum either

                """
        )
        #expect(policy.minimumCosigners == 2)
        let connection = try await database.connect()
        let body = try #require(NoteText(checkpoint.note)).body
        func cosign(_ witness: CosignatureSigner, hoursAgo: Int) async throws {
            let line = try witness.cosign(body: body, time: 1_795_600_000)
            try await connection.query(
                """
                INSERT INTO authlog.checkpoint_cosignatures (tree_size, witness, line, cosigned_at, received_at)
                VALUES (\(checkpoint.size), \(witness.name), \(String(line.dropLast())), to_timestamp(1795600000),
                        now() - make_interval(hours => \(hoursAgo)::int))
                """
            )
        }
        let rows = try await connection.query("SELECT event_id::text FROM authlog.log_leaves WHERE position = 1")
        let first = try #require(rows.first)
        let event = try #require(UUID(uuidString: try first.decode(String.self, at: 0)))

        try await cosign(witnesses[0], hoursAgo: 3)
        try await cosign(witnesses[2], hoursAgo: 2)
        #expect(try await CheckpointCosignatures.newestWitnessed(under: policy, on: connection) == nil)
        let pending = try await ReceiptMaker.make(of: event, witnessPolicy: policy, on: connection)
        #expect(!pending.isWitnessed, "A and C are two cosignatures, but neither group")

        try await cosign(witnesses[1], hoursAgo: 1)
        let reached = try #require(try await CheckpointCosignatures.newestWitnessed(under: policy, on: connection))
        #expect(reached.size == checkpoint.size)
        let age = Int64(Date().timeIntervalSince1970) - reached.reachedAt
        #expect((3590..<3700).contains(age), "B completed the quorum an hour ago: \(age)")
        let witnessed = try await ReceiptMaker.make(of: event, witnessPolicy: policy, on: connection)
        #expect(witnessed.isWitnessed)
        #expect(policy.check(note: witnessed.receipt.note)?.quorumMet == true)
    }

    /// `quorum none`: the newest checkpoint is witnessed without a single cosignature, reached when it was signed,
    /// so a restarted process's witnessed figures do not start at 0 (there are no cosignature rows to find it by).
    @Test func underQuorumNoneTheNewestCheckpointIsWitnessed() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        let log = try NoteSigner(name: "none.test/log", key: try PrivateKey.generate(for: .edDSA))
        let checkpointer = Checkpointer(store: store, signer: log, directory: nil)
        let policy = try WitnessPolicy(text: "log \(log.verifier.verifierKey)\nquorum none\n")
        let connection = try await database.connect()
        #expect(try await CheckpointCosignatures.newestWitnessed(under: policy, on: connection) == nil, "no checkpoint")
        var traffic = TrafficGenerator(seed: 43)
        try await store.append(AppendCommand(events: traffic.events(count: 4)))
        try await store.sealPending()
        let first = try await checkpointer.signNow()
        try await store.append(AppendCommand(events: traffic.events(count: 3)))
        try await store.sealPending()
        let newest = try await checkpointer.signNow()
        #expect(newest.size > first.size)
        try await connection.execute(
            """
            BEGIN; ALTER TABLE authlog.checkpoints DISABLE TRIGGER USER;
            UPDATE authlog.checkpoints SET signed_at = now() - interval '2 hours'
            WHERE tree_size = (SELECT max(tree_size) FROM authlog.checkpoints);
            ALTER TABLE authlog.checkpoints ENABLE TRIGGER USER; COMMIT
            """
        )
        let witnessed = try #require(try await CheckpointCosignatures.newestWitnessed(under: policy, on: connection))
        #expect(witnessed.size == newest.size)
        let age = Int64(Date().timeIntervalSince1970) - witnessed.reachedAt
        #expect((7190..<7300).contains(age), "reached when it was signed, two hours ago: \(age)")
    }
}
