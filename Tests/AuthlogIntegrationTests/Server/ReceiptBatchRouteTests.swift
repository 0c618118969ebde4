import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

/// `GET /v1/log/receipts`: a user's receipts in one answer, against one checkpoint with one multi-leaf proof, that
/// the device's ``ReceiptBatch`` verifies with the log's key; another user's event is `not_found` as one that
/// does not exist; with `from`, a consistency proof between the device's checkpoint and the answer's.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct ReceiptBatchRouteTests {
    static let origin = "receipts.test/log"

    /// The ids of the events of `userID`, as stored.
    private func events(of userID: UUID, _ server: ServerHarness) async throws -> [String] {
        try await server.database.connect().query(
            "SELECT event_id::text FROM authlog.event_records WHERE user_id = \(userID) ORDER BY event_id"
        ).rows.map { try $0.decode(String.self, at: 0) }
    }

    private func receipts(
        _ ids: [String],
        from: Int64? = nil,
        as user: SignedIn,
        _ server: ServerHarness
    )
        async throws -> HTTPTestClient.Answer
    {
        let query = "ids=" + ids.joined(separator: ",") + (from.map { "&from=\($0)" } ?? "")
        return try await server.send("GET", "/v1/log/receipts?\(query)", as: user)
    }

    /// The answer as a device reads it.
    static func batch(_ answer: HTTPTestClient.Answer) throws -> ReceiptBatch {
        let entries = try #require(answer.json["receipts"]?.arrayValue).map { receipt in
            ReceiptBatch.Entry(
                eventID: try #require(receipt["event_id"]?.stringValue),
                position: try #require(receipt["index"]?.integerValue) + 1,
                eventBytes: Array(try #require(Data(base64Encoded: receipt["event"]?.stringValue ?? "")))
            )
        }
        return ReceiptBatch(
            note: try #require(answer.json["checkpoint"]?.stringValue),
            entries: entries,
            proof: try Self.hashes(answer.json["proof"])
        )
    }

    /// Concatenated 32-byte hashes in base64, split.
    static func hashes(_ value: JSONValue?) throws -> [[UInt8]] {
        let bytes = Array(try #require(Data(base64Encoded: value?.stringValue ?? "-")))
        try #require(bytes.count % 32 == 0)
        return stride(from: 0, to: bytes.count, by: 32).map { Array(bytes[$0..<$0 + 32]) }
    }

    @Test func aUsersReceiptsComeInOneAnswerThatTheDeviceVerifies() async throws {
        let (server, _) = try await ServerHarness.startSigningCheckpoints(origin: Self.origin)
        defer { Task { await server.stop() } }
        let alice = try await server.signInDev("alice")
        var refresh = alice.refreshToken
        for _ in 0..<7 { refresh = try #require(try await server.refresh(refresh).string("refresh_token")) }
        let bob = try await server.signInDev("bob")
        for index in 0..<5 { _ = try await server.signInDev("other-\(index)") }
        let checkpointer = try #require(server.components.checkpointer)
        try await checkpointer.signNow()
        let ids = try await self.events(of: alice.userID, server)
        #expect(ids.count >= 10, "\(ids)")
        let bobs = try #require(try await self.events(of: bob.userID, server).first)
        let unknown = UUID().lowercased

        let answer = try await self.receipts(ids + [bobs, unknown], as: alice, server)
        #expect(answer.status == 200, "\(answer.json.canonicalText)")
        #expect(answer.header("Content-Type") == "application/json")
        #expect(answer.header("Cache-Control") == "no-store")
        #expect(answer.header("Retry-After") == nil)
        #expect(answer.json["witnessed"] == .string("none"))
        #expect(answer.json["not_found"] == .array([.string(bobs), .string(unknown)]), "another's event as none")
        #expect(answer.json["pending"] == .array([]))
        #expect(answer.json["consistency"] == nil)
        let batch = try Self.batch(answer)
        #expect(batch.entries.map(\.position) == batch.entries.map(\.position).sorted())
        #expect(Set(batch.entries.map(\.eventID)) == Set(ids))
        // The log key from the server's own configuration.
        let verified = try batch.verify(logKey: checkpointer.verifier, policy: nil)
        #expect(verified.events.allSatisfy { $0.userID == alice.userID.lowercased })
        #expect(verified.events.map(\.eventID) == batch.entries.map(\.eventID))
        let types = try await server.database.connect().query(
            "SELECT type FROM authlog.event_records WHERE user_id = \(alice.userID) ORDER BY type"
        ).rows.map { try $0.decode(String.self, at: 0) }
        #expect(verified.events.map(\.type).sorted() == types)
        #expect(verified.checkpoint.origin == Self.origin && verified.quorumMet)
        // A multi-leaf proof: fewer hashes than the events' single proofs together.
        #expect(batch.proof.count < ids.count * 5)

        // `event_form=text`: the same bytes, one character per byte, in a form gzip sees into.
        let asText = try await server.send(
            "GET",
            "/v1/log/receipts?ids=\(ids.joined(separator: ","))&event_form=text",
            as: alice
        )
        let texts = try #require(asText.json["receipts"]?.arrayValue)
        #expect(texts.allSatisfy { $0["event"] == nil }, "event_text instead of event")
        let textBytes = try texts.map { receipt in
            let text = try #require(receipt["event_text"]?.stringValue)
            return try #require(EventText.bytes(of: text))
        }
        #expect(textBytes == batch.entries.map(\.eventBytes))
        #expect(textBytes.contains { $0.contains { $0 < 0x20 } }, "the events' binary lengths travel as escapes")

        // Bob asking for Alice's events learns nothing either.
        let asBob = try await self.receipts(ids, as: bob, server)
        #expect(asBob.status == 200)
        #expect(asBob.json["receipts"] == .array([]) && asBob.json["proof"] == .string(""))
        #expect(asBob.json["not_found"]?.arrayValue?.count == ids.count)
        #expect(try Self.batch(asBob).verify(logKey: checkpointer.verifier, policy: nil).events.isEmpty)
    }

    @Test func badQueriesAreRefusedByName() async throws {
        let (server, _) = try await ServerHarness.startSigningCheckpoints(origin: Self.origin)
        defer { Task { await server.stop() } }
        let alice = try await server.signInDev("alice")
        try await #require(server.components.checkpointer).signNow()
        let id = try #require(try await self.events(of: alice.userID, server).first)
        let many = (0...64).map { _ in UUID().lowercased }.joined(separator: ",")
        for (query, problem) in [
            ("", "ids once"), ("ids=", "entry 1 is not an event id"), ("ids=abc", "entry 1 is not an event id"),
            ("ids=\(id),", "entry 2 is not an event id"), ("ids=\(many)", "more than 64 event ids"),
            ("ids=\(id),\(id.uppercased())", "names the event \(id) twice"), ("ids=\(id)&ids=\(id)", "ids once"),
            ("ids=\(id)&from=0", "from must be"), ("ids=\(id)&from=abc", "from must be"),
            ("ids=\(id)&from=-1", "from must be"), ("ids=\(id)&from=4611686018427387905", "from must be"),
            ("ids=\(id)&from=1&from=2", "from at most once"), ("ids=\(id)&event_form=hex", "event_form at most once"),
            ("ids=\(id)&event_form=text&event_form=text", "event_form at most once"),
        ] {
            let answer = try await server.send("GET", "/v1/log/receipts?\(query)", as: alice)
            #expect(answer.status == 400, "\(query)")
            #expect(answer.string("error") == "invalid_request", "\(query)")
            #expect(answer.string("error_description")?.contains(problem) == true, "\(query): \(answer.json)")
        }
        let largest = try await server.send("GET", "/v1/log/receipts?ids=\(id)&from=4611686018427387904", as: alice)
        #expect(largest.status == 200, "from = 2^62 is read (and larger than the tree: no consistency)")
        #expect(largest.json["consistency"] == nil)
        let audit = try await APIKeyStore(pool: server.components.store.pool).create(name: "auditor", scope: .audit)
        for bearer in [nil, audit, "a.b.c"] {
            let answer = try await server.client.send(
                "GET",
                "/v1/log/receipts?ids=\(id)",
                headers: bearer.map { [("Authorization", "Bearer \($0)")] } ?? []
            )
            #expect(answer.status == 401 && answer.string("error") == "invalid_token", "\(bearer ?? "none")")
        }
    }

    /// `from` older than the checkpoint gives the RFC 9162 consistency proof between the device's checkpoint and
    /// the answer's; `from` at or past the answer's size gives none.
    @Test func fromGivesAConsistencyProofBetweenTheTwoCheckpoints() async throws {
        let (server, logKey) = try await ServerHarness.startSigningCheckpoints(origin: Self.origin)
        defer { Task { await server.stop() } }
        let alice = try await server.signInDev("alice")
        let checkpointer = try #require(server.components.checkpointer)
        let first = try await checkpointer.signNow()
        for index in 0..<6 { _ = try await server.signInDev("later-\(index)") }
        let second = try await checkpointer.signNow()
        #expect(first.size < second.size)
        let ids = try await self.events(of: alice.userID, server)
        let answer = try await self.receipts(ids, from: first.size, as: alice, server)
        #expect(answer.status == 200)
        let verified = try Self.batch(answer).verify(logKey: logKey, policy: nil)
        #expect(verified.checkpoint.size == second.size)
        let proof = try Self.hashes(answer.json["consistency"])
        #expect(!proof.isEmpty)
        try ConsistencyVerifier.verify(
            oldSize: first.size,
            oldRoot: first.root,
            newSize: verified.checkpoint.size,
            newRoot: verified.checkpoint.root,
            proof: proof,
            crypto: logKey.crypto
        )
        #expect(throws: ConsistencyVerifier.Failure.self) {
            try ConsistencyVerifier.verify(
                oldSize: first.size,
                oldRoot: MerkleTree.emptyRoot,
                newSize: verified.checkpoint.size,
                newRoot: verified.checkpoint.root,
                proof: proof,
                crypto: logKey.crypto
            )
        }
        for from in [second.size, second.size + 1] {
            let none = try await self.receipts(ids, from: from, as: alice, server)
            #expect(none.status == 200 && none.json["consistency"] == nil, "from \(from)")
        }
        // Answered even when no receipt is: the device still checks the tree it is shown.
        let nothing = try await self.receipts([UUID().lowercased], from: first.size, as: alice, server)
        #expect(nothing.json["receipts"] == .array([]))
        #expect(try Self.hashes(nothing.json["consistency"]) == proof)
    }

    /// With a witness configured that has not cosigned: 202, `witnessed: pending`, `Retry-After` the witness
    /// interval, and a batch that verifies with the log's key but below the policy's quorum; once the cosignature
    /// is stored, 200 and `yes`. (The witness's URL answers nothing: this server only reads stored cosignatures.)
    @Test func aCheckpointTheWitnessesHaveNotCosignedIsPending() async throws {
        let witness = try CosignatureSigner(name: "witness.test/batch", key: try PrivateKey.generate(for: .edDSA))
        let (server, logKey) = try await ServerHarness.startSigningCheckpoints(
            origin: Self.origin,
            witnesses: [witness],
            witnessIntervalSeconds: 7
        )
        defer { Task { await server.stop() } }
        let policy = try WitnessPolicy(witnesses: [witness.verifier], quorum: 1)
        let alice = try await server.signInDev("alice")
        let signed = try await #require(server.components.checkpointer).signNow()
        let ids = try await self.events(of: alice.userID, server)
        let pending = try await self.receipts(ids, as: alice, server)
        #expect(pending.status == 202)
        #expect(pending.json["witnessed"] == .string("pending"))
        #expect(pending.header("Retry-After") == "7")
        let below = try Self.batch(pending).verify(logKey: logKey, policy: policy)
        #expect(!below.quorumMet && below.cosigned.isEmpty && below.events.count == ids.count)

        try await server.storeCosignature(of: signed, by: witness)
        let witnessed = try await self.receipts(ids, as: alice, server)
        #expect(witnessed.status == 200)
        #expect(witnessed.json["witnessed"] == .string("yes"))
        #expect(witnessed.header("Retry-After") == nil)
        let met = try Self.batch(witnessed).verify(logKey: logKey, policy: policy)
        #expect(met.quorumMet && met.cosigned == [witness.name])
    }

    /// An event no signed checkpoint covers yet (not sealed, or sealed after the checkpoint) is in `pending`,
    /// 202 with `Retry-After` the checkpoint interval; the others' receipts are answered. Before the first
    /// checkpoint there is nothing to answer against: 409 `not_checkpointed`.
    @Test func anEventNotCheckpointedYetIsPending() async throws {
        let (server, logKey) = try await ServerHarness.startSigningCheckpoints(origin: Self.origin)
        defer { Task { await server.stop() } }
        let alice = try await server.signInDev("alice")
        let first = try await self.events(of: alice.userID, server)
        let early = try await self.receipts(first, as: alice, server)
        #expect(early.status == 409 && early.string("error") == "not_checkpointed")
        #expect(early.header("Retry-After") == "60")
        try await #require(server.components.checkpointer).signNow()
        let refreshed = try await server.refresh(alice.refreshToken)
        let added = try #require(refreshed.header("Authlog-Event-Ids")?.split(separator: ",").map(String.init))
        #expect(!added.isEmpty)
        for seal in [false, true] {
            if seal { try await server.components.store.sealPending() }
            let answer = try await self.receipts(first + added, as: alice, server)
            #expect(answer.status == 202, "sealed: \(seal)")
            #expect(answer.header("Retry-After") == "60")
            #expect(answer.json["witnessed"] == .string("none"))
            let pending = try #require(answer.json["pending"]?.arrayValue)
            #expect(pending.compactMap { $0["event_id"]?.stringValue } == added)
            #expect(pending.allSatisfy { $0["reason"] == .string("not_checkpointed") })
            let verified = try Self.batch(answer).verify(logKey: logKey, policy: nil)
            #expect(Set(verified.events.map(\.eventID)) == Set(first))
        }
    }

    /// The route is a log read: the default `log_read` burst is answered, then 429 (counted, not one event each).
    @Test func aFloodOfReceiptRequestsIsLimitedAsALogRead() async throws {
        #expect(LimitedRoute.of(method: "GET", path: "/v1/log/receipts") == .logRead)
        // The harness turns the limits off; this turns them back on with their defaults. Their clock never
        // moves: the burst is not refilled however slowly the machine answers.
        let defaults: (inout ServerConfiguration) -> Void = { $0.rateLimits = ServerConfiguration.RateLimitSettings() }
        let stopped: @Sendable () -> Double = { 1000 }
        try await ServerHarness.run(adjust: defaults, rateLimitUptime: stopped) { server in
            let flood = [("X-Forwarded-For", "203.0.113.77")]
            let path = "/v1/log/receipts?ids=\(UUID().lowercased)"
            var statuses: [Int: Int] = [:]
            for _ in 0..<(RateLimitDefaults.logRead.burst + 5) {
                statuses[try await server.client.send("GET", path, headers: flood).status, default: 0] += 1
            }
            #expect(statuses == [401: RateLimitDefaults.logRead.burst, 429: 5], "\(statuses)")
            let refused = try await server.client.send("GET", path, headers: flood)
            #expect(refused.status == 429 && refused.string("error") == "rate_limited")
        }
    }
}
