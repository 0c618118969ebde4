import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

/// `authlog prove --receipt EVENT_ID` writes the receipt the HTTP route serves, recorded as a read.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct ReceiptCommandTests {
    @Test func proveWritesAReceiptThatVerifiesOffline() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        var traffic = TrafficGenerator(seed: 77)
        try await store.append(AppendCommand(events: Array(traffic.events(count: 30).prefix(30))))
        let key = try PrivateKey.generate(for: .edDSA)
        let signer = try NoteSigner(name: "cli.test/log", key: key)
        let eventID = try #require(
            try await database.connect().query("SELECT event_id::text FROM authlog.event_records LIMIT 1").first?
                .decode(String.self, at: 0)
        )
        let early = try await CLIProcess.run(["prove", "--receipt", eventID], databaseURL: database.conninfo)
        #expect(early.status == 1)
        #expect(early.stderr.contains("no signed checkpoint covers position"))
        try await Checkpointer(store: store, signer: signer, directory: nil).signNow()
        let proved = try await CLIProcess.run(["prove", "--receipt", eventID], databaseURL: database.conninfo)
        #expect(proved.status == 0, "\(proved.stderr)")
        let (receipt, checkpoint) = try LogReceipt.verify(proved.stdout, logKey: signer.verifier)
        #expect(checkpoint.size == 30)
        let digest = try #require(
            try await database.connect().query("SELECT digest FROM authlog.events WHERE event_id = \(eventID)::uuid")
                .first?.decode(ByteaValue.self, at: 0).bytes
        )
        #expect(SHA256.hash(receipt.eventBytes) == digest)
        #expect(
            try await database.scalar(
                "SELECT count(*) FROM authlog.events WHERE type = 'audit.accessed' AND data->>'query' = \("receipt event_id=\(eventID)")"
            ) == 1
        )
        let refused = try await CLIProcess.run(
            ["prove", "--receipt", "--position", "3"],
            databaseURL: database.conninfo
        )
        #expect(refused.status == 2, "a usage error")
        #expect(refused.stderr.contains("--receipt takes an event id"))
    }
}
