import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

/// The log's per-device reads answer in gzip when the request takes it (AuthlogClient's monitor asks for it):
/// the receipts batch and the consistency and inclusion proofs. What the server compressed, the system's gzip
/// reads back as the identity answer; a request that does not take gzip, or refuses it, gets identity.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct LogAnswerCompressionTests {
    static let gzip = [("Accept-Encoding", "gzip")]

    @Test func theProofRoutesAnswerGzipOnlyToWhoTakesIt() async throws {
        try await ServerHarness.run(adjust: TileRouteTests.unlimited) { harness in
            try await harness.database.seedSealedEvents(300)
            for path in ["/v1/log/proof/consistency?from=5&to=300", "/v1/log/proof/inclusion?position=3"] {
                let plain = try await harness.client.send("GET", path)
                #expect(plain.status == 200 && plain.header("Content-Encoding") == nil, "\(path)")
                #expect(plain.header("Vary") == "Accept-Encoding", "\(path)")
                let compressed = try await harness.client.send("GET", path, headers: Self.gzip)
                #expect(compressed.status == 200 && compressed.header("Content-Encoding") == "gzip", "\(path)")
                #expect(compressed.header("Vary") == "Accept-Encoding")
                #expect(compressed.header("Content-Type") == "application/json")
                #expect(try SystemGzip.decompress(compressed.body) == plain.body, "\(path)")
                for refusing in ["gzip;q=0", "br", "identity", "*;q=0"] {
                    let answer = try await harness.client.send("GET", path, headers: [("Accept-Encoding", refusing)])
                    #expect(answer.header("Content-Encoding") == nil && answer.body == plain.body, "\(refusing)")
                }
            }
        }
    }

    @Test func aDevicesReceiptsComeCompressedAndReadBackWhole() async throws {
        let (server, _) = try await ServerHarness.startSigningCheckpoints(origin: ReceiptBatchRouteTests.origin)
        defer { Task { await server.stop() } }
        let alice = try await server.signInDev("alice")
        var refresh = alice.refreshToken
        for _ in 0..<20 { refresh = try #require(try await server.refresh(refresh).string("refresh_token")) }
        try await #require(server.components.checkpointer).signNow()
        let ids = try await server.database.connect().query(
            "SELECT event_id::text FROM authlog.event_records WHERE user_id = \(alice.userID) ORDER BY event_id"
        ).rows.map { try $0.decode(String.self, at: 0) }
        let path = "/v1/log/receipts?ids=" + ids.joined(separator: ",")
        let bearer = ("Authorization", "Bearer \(alice.accessToken)")
        let plain = try await server.client.send("GET", path, headers: ServerHarness.appHeaders + [bearer])
        let compressed = try await server.client.send(
            "GET",
            path,
            headers: ServerHarness.appHeaders + [bearer] + Self.gzip
        )
        #expect(plain.status == 200 && plain.header("Content-Encoding") == nil)
        #expect(compressed.status == 200 && compressed.header("Content-Encoding") == "gzip")
        let decoded = try SystemGzip.decompress(compressed.body)
        #expect(decoded == plain.body, "no checkpoint was signed between the two reads")
        // One user's events look alike: the batch shrinks to well under half.
        #expect(compressed.body.count * 2 < plain.body.count, "\(compressed.body.count) of \(plain.body.count)")

        // The events as text (`event_form=text`, what AuthlogClient asks): gzip sees what they repeat, which
        // base64 hides.
        let text = try await server.client.send(
            "GET",
            path + "&event_form=text",
            headers: ServerHarness.appHeaders + [bearer] + Self.gzip
        )
        #expect(text.status == 200 && text.header("Content-Encoding") == "gzip")
        print("receipts of \(ids.count) events, gzip: base64 \(compressed.body.count) B, text \(text.body.count) B")
        #expect(text.body.count * 4 < compressed.body.count * 3, "\(text.body.count) of \(compressed.body.count)")
    }
}
