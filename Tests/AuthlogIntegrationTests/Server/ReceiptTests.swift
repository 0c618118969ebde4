import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

/// Receipts: every answer that appended events names them (`Authlog-Event-Ids`, and `event_ids` in token
/// answers), and `GET /v1/log/receipt/{event_id}` answers a `c2sp.org/tlog-proof@v1` file that proves the
/// event offline with the log's verifier key alone, to the event's own user or an audit key; anyone else gets
/// 404.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct ReceiptTests {
    /// A server whose log is signed with a key of its own.
    private func server() async throws -> (ServerHarness, NoteVerifier) {
        try await ServerHarness.startSigningCheckpoints(origin: "receipts.test/log")
    }

    private func ids(_ answer: HTTPTestClient.Answer) -> [String] {
        answer.header("Authlog-Event-Ids")?.split(separator: ",").map(String.init) ?? []
    }

    @Test func answersNameTheirEventsAndTheOwnerGetsAReceiptThatProvesItOffline() async throws {
        let (server, logKey) = try await self.server()
        defer { Task { await server.stop() } }
        let answer = try await server.post("/v1/signin/dev", .members(["subject": .string("alice")]))
        let alice = try SignedIn(answer)
        let named = self.ids(answer)
        #expect(named.count == 3, "signin.succeeded, user.registered, token.issued: \(named)")
        #expect(answer.json["event_ids"] == .array(named.map { .string($0) }), "the body names the same events")
        let types = try await server.database.connect().query(
            "SELECT type FROM authlog.event_records WHERE event_id = ANY(\(ArrayLiteral(named))::uuid[]) ORDER BY type"
        ).rows.map { try $0.decode(String.self, at: 0) }
        #expect(types == ["signin.succeeded", "token.issued", "user.registered"])
        let signin = try #require(
            try await server.database.connect().query(
                """
                SELECT event_id::text FROM authlog.event_records
                WHERE event_id = ANY(\(ArrayLiteral(named))::uuid[]) AND type = 'signin.succeeded'
                """
            ).first?.decode(String.self, at: 0)
        )
        let path = "/v1/log/receipt/\(signin)"
        let early = try await server.send("GET", path, as: alice)
        #expect(early.status == 409)
        #expect(early.json["error"] == .string("not_checkpointed"))
        #expect(early.header("Retry-After") == "60")

        let checkpointer = try #require(server.components.checkpointer)
        try await checkpointer.signNow()
        let accessedBefore = try await self.accessed(server)
        let fetched = try await server.send("GET", path, as: alice)
        #expect(fetched.status == 200)
        #expect(fetched.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(fetched.header("Cache-Control") == "no-store")
        let text = String(decoding: fetched.body, as: UTF8.self)
        #expect(text.hasPrefix("c2sp.org/tlog-proof@v1\nextra "))
        let (receipt, checkpoint) = try LogReceipt.verify(text, logKey: logKey)
        let stored = try #require(
            try await server.database.connect().query(
                "SELECT position, digest FROM authlog.events WHERE event_id = \(signin)::uuid"
            ).first
        )
        #expect(receipt.position == (try stored.decode(Int64.self, at: 0)))
        #expect(SHA256.hash(receipt.eventBytes) == (try stored.decode(ByteaValue.self, at: 1).bytes))
        #expect(String(decoding: receipt.eventBytes, as: UTF8.self).contains(signin), "the event's own bytes")
        #expect(checkpoint.size >= receipt.position)
        #expect(try await self.accessed(server) == accessedBefore, "the owner's own receipt is not an audit read")

        // Logout answers 204 with no body; its header still names what it appended.
        let logout = try await server.send("POST", "/v1/logout", as: alice)
        #expect(logout.status == 204)
        #expect(self.ids(logout).count == 1)
    }

    /// With witnesses configured, a receipt whose checkpoint the quorum has not cosigned yet is 202 with
    /// `Retry-After` and `Authlog-Receipt-Witnessed: pending` (it verifies with the log's key, not under the
    /// witness policy); once the cosignature is stored it is 200 and `yes`, and proves under the policy offline.
    @Test func aReceiptSaysWhetherItsCheckpointIsWitnessed() async throws {
        let witness = try CosignatureSigner(name: "witness.test/receipts", key: try PrivateKey.generate(for: .edDSA))
        let (server, logKey) = try await ServerHarness.startSigningCheckpoints(
            origin: "receipts.test/log",
            witnesses: [witness],
            witnessIntervalSeconds: 7
        )
        defer { Task { await server.stop() } }
        let answer = try await server.post("/v1/signin/dev", .members(["subject": .string("alice")]))
        let alice = try SignedIn(answer)
        let event = try #require(self.ids(answer).first)
        let signed = try await #require(server.components.checkpointer).signNow()
        let pending = try await server.send("GET", "/v1/log/receipt/\(event)", as: alice)
        #expect(pending.status == 202)
        #expect(pending.header("Authlog-Receipt-Witnessed") == "pending")
        #expect(pending.header("Retry-After") == "7")
        let policy = try WitnessPolicy(witnesses: [witness.verifier], quorum: 1)
        let text = String(decoding: pending.body, as: UTF8.self)
        _ = try LogReceipt.verify(text, logKey: logKey)
        #expect(throws: LogReceipt.Failure.self) { try LogReceipt.verify(text, logKey: logKey, witnesses: policy) }

        try await server.storeCosignature(of: signed, by: witness)
        let witnessed = try await server.send("GET", "/v1/log/receipt/\(event)", as: alice)
        #expect(witnessed.status == 200)
        #expect(witnessed.header("Authlog-Receipt-Witnessed") == "yes")
        #expect(witnessed.header("Retry-After") == nil)
        _ = try LogReceipt.verify(String(decoding: witnessed.body, as: UTF8.self), logKey: logKey, witnesses: policy)
    }

    /// A receipt is refused for an event whose row was edited after it was sealed (its bytes no longer hash to its
    /// digest): it would fail offline. The route answers 409 `event_altered`; `prove --receipt` exits 1.
    @Test func anAlteredEventGetsNoReceipt() async throws {
        let (server, _) = try await self.server()
        defer { Task { await server.stop() } }
        let answer = try await server.post("/v1/signin/dev", .members(["subject": .string("alice")]))
        let alice = try SignedIn(answer)
        let event = try #require(self.ids(answer).first)
        try await #require(server.components.checkpointer).signNow()
        #expect(try await server.send("GET", "/v1/log/receipt/\(event)", as: alice).status == 200)
        try await server.database.connect().execute(
            SQLQuery(
                unsafeSQL: """
                    BEGIN;
                    ALTER TABLE authlog.event_records DISABLE TRIGGER USER;
                    UPDATE authlog.event_records SET user_agent = 'edited/1' WHERE event_id = '\(event)';
                    ALTER TABLE authlog.event_records ENABLE TRIGGER USER;
                    COMMIT
                    """
            )
        )
        let refused = try await server.send("GET", "/v1/log/receipt/\(event)", as: alice)
        #expect(refused.status == 409)
        #expect(refused.json["error"] == .string("event_altered"))
        #expect(refused.json["error_description"]?.stringValue?.contains("no longer matches its digest") == true)
        let proved = try await CLIProcess.run(["prove", "--receipt", event], databaseURL: server.database.conninfo)
        #expect(proved.status == 1, "\(proved.stdout)")
        #expect(proved.stdout.isEmpty)
        #expect(proved.stderr.contains("no receipt: the event at position "), "\(proved.stderr)")
    }

    @Test func nobodyElseLearnsWhetherTheEventExists() async throws {
        let (server, logKey) = try await self.server()
        defer { Task { await server.stop() } }
        let aliceAnswer = try await server.post("/v1/signin/dev", .members(["subject": .string("alice")]))
        let bob = try await server.signInDev("bob")
        let event = try #require(self.ids(aliceAnswer).first)
        try await #require(server.components.checkpointer).signNow()
        let keys = APIKeyStore(pool: server.components.store.pool)
        let audit = try await keys.create(name: "auditor", scope: .audit)
        let ingest = try await keys.create(name: "feeder", scope: .ingest)
        let unknown = UUID().lowercased
        for (path, bearer, status, error) in [
            ("/v1/log/receipt/\(event)", bob.accessToken, 404, "not_found"),
            ("/v1/log/receipt/\(unknown)", bob.accessToken, 404, "not_found"),
            ("/v1/log/receipt/not-a-uuid", bob.accessToken, 404, "not_found"),
            ("/v1/log/receipt/\(event)", nil, 401, "invalid_token"),
            ("/v1/log/receipt/\(event)", "a.b.c", 401, "invalid_token"),
            ("/v1/log/receipt/\(event)", ingest, 403, "insufficient_scope"),
            ("/v1/log/receipt/\(event)", "alk_unknown", 401, "invalid_api_key"),
            ("/v1/log/receipt/\(unknown)", audit, 404, "not_found"),
        ] as [(String, String?, Int, String)] {
            let answer = try await server.client.send(
                "GET",
                path,
                headers: bearer.map { [("Authorization", "Bearer \($0)")] } ?? []
            )
            #expect(answer.status == status, "\(path)")
            #expect(answer.json["error"] == .string(error), "\(path)")
        }
        let before = try await self.accessed(server)
        let audited = try await server.client.send(
            "GET",
            "/v1/log/receipt/\(event)",
            headers: [("Authorization", "Bearer \(audit)")]
        )
        #expect(audited.status == 200)
        _ = try LogReceipt.verify(String(decoding: audited.body, as: UTF8.self), logKey: logKey)
        #expect(try await self.accessed(server) == before + 1, "an audit key's read is recorded")
        let probed = try await server.client.send(
            "GET",
            "/v1/log/receipt/\(UUID().lowercased)",
            headers: [("Authorization", "Bearer \(audit)")]
        )
        #expect(probed.status == 404)
        #expect(try await self.accessed(server) == before + 2, "and so is its refused one")
    }

    /// A receipt the server serves proves its event with the log's key alone, through a proof of several levels,
    /// and not with another key. Each edited part's failure is tested on the verification core without a server
    /// (clients/swift, LogReceiptTests).
    @Test func aServedReceiptVerifiesWithTheLogsKeyOnly() async throws {
        let (server, logKey) = try await self.server()
        defer { Task { await server.stop() } }
        for index in 0..<20 { _ = try await server.signInDev("user-\(index)") }
        let answer = try await server.post("/v1/signin/dev", .members(["subject": .string("zed")]))
        let zed = try SignedIn(answer)
        try await #require(server.components.checkpointer).signNow()
        let event = try #require(self.ids(answer).first)
        let text = String(
            decoding: try await server.send("GET", "/v1/log/receipt/\(event)", as: zed).body,
            as: UTF8.self
        )
        let (receipt, checkpoint) = try LogReceipt.verify(text, logKey: logKey)
        #expect(receipt.proof.count >= 5 && receipt.position <= checkpoint.size)
        let stranger = try NoteSigner(name: "receipts.test/log", key: try PrivateKey.generate(for: .edDSA))
        #expect(throws: LogReceipt.Failure.checkpoint(.notSignedByKey("receipts.test/log"))) {
            try LogReceipt.verify(text, logKey: stranger.verifier)
        }
    }

    private func accessed(_ server: ServerHarness) async throws -> Int64 {
        try await server.database.scalar("SELECT count(*) FROM authlog.event_records WHERE type = 'audit.accessed'")
    }
}
