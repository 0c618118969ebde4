import AuthlogCore
import AuthlogCrypto
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// `GET /v1/events` behind scoped API keys: who may read, what every read leaves in the log, and a consumer
/// that resumes from its cursor during 32-way appends.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct EventExportTests {
    /// One key of each scope, plus a revoked audit key; returns the keys by label.
    private static func makeKeys(on server: ServerHarness) async throws -> [String: String] {
        let store = APIKeyStore(pool: server.components.store.pool)
        var keys: [String: String] = [:]
        for scope in APIKeyScope.allCases {
            keys[scope.rawValue] = try await store.create(name: "siem-\(scope.rawValue)", scope: scope)
        }
        keys["revoked"] = try await store.create(name: "old-siem", scope: .audit)
        #expect(try await store.revoke(name: "old-siem"))
        return keys
    }

    /// The `audit.accessed` events, in order: (outcome, reason, actor, query).
    private static func accessEvents(_ server: ServerHarness) async throws -> [(String, String?, String, String)] {
        try await server.events().filter { $0.type == "audit.accessed" }.map {
            ($0.outcome, $0.reason, $0.data["actor"]?.stringValue ?? "", $0.data["query"]?.stringValue ?? "")
        }
    }

    @Test func everyKeyIsCheckedAndEveryAttemptIsRecordedOnce() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let keys = try await Self.makeKeys(on: server)
        let cases: [(label: String, key: String?, status: Int, error: String?, reason: String?, actor: String)] = [
            ("audit", keys["audit"], 200, nil, nil, "key:siem-audit"),
            ("ingest", keys["ingest"], 403, "insufficient_scope", "insufficient_scope", "key:siem-ingest"),
            ("admin", keys["admin"], 403, "insufficient_scope", "insufficient_scope", "key:siem-admin"),
            ("revoked", keys["revoked"], 401, "invalid_api_key", "revoked_api_key", "key:old-siem"),
            (
                "unknown", "alk_" + String(repeating: "A", count: 43), 401, "invalid_api_key", "unknown_api_key",
                "anonymous"
            ),
            ("missing", nil, 401, "invalid_api_key", "missing_api_key", "anonymous"),
        ]
        for (index, entry) in cases.enumerated() {
            let answer = try await ExportRequests.get("/v1/events?limit=5", key: entry.key, on: server)
            #expect(answer.status == entry.status, "\(entry.label): \(answer.status)")
            #expect(answer.string("error") == entry.error, "\(entry.label)")
            if entry.status != 200 {
                #expect(answer.header("WWW-Authenticate")?.hasPrefix("Bearer") == true, "\(entry.label)")
            }
            // A refusal is recorded by the refusal recorder (at once when it is its address's first in a window):
            // closing the window after each attempt makes each one its window's first.
            try await server.flushRefusals()
            let recorded = try await Self.accessEvents(server)
            #expect(recorded.count == index + 1, "\(entry.label): exactly one audit.accessed per attempt")
            let last = try #require(recorded.last)
            #expect(last.0 == (entry.status == 200 ? "success" : "failure"), "\(entry.label)")
            #expect(last.1 == entry.reason, "\(entry.label)")
            #expect(last.2 == entry.actor, "\(entry.label)")
        }
        let first = try #require(try await Self.accessEvents(server).first)
        #expect(first.3 == "export after=0 next=0 limit=5", "the read names its range and limit: \(first.3)")
    }

    @Test func badParametersAndACursorBeyondTheLogAre400AndRecorded() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let key = try #require(try await Self.makeKeys(on: server)["audit"])
        let refused: [(String, String)] = [
            ("/v1/events?usr_id=1", "invalid_request"),
            ("/v1/events?limit=0", "invalid_request"),
            ("/v1/events?limit=1001", "invalid_request"),
            ("/v1/events?after=-1", "invalid_request"),
            ("/v1/events?after=99999999999999999999999", "invalid_request"),
            ("/v1/events?type=nope", "invalid_request"),
            ("/v1/events?user_id=not-a-uuid", "invalid_request"),
            ("/v1/events?limit=1&limit=2", "invalid_request"),
            ("/v1/events?format=cef", "invalid_request"),
            ("/v1/events?after=1000", "out_of_range"),
        ]
        for (path, code) in refused {
            let answer = try await ExportRequests.get(path, key: key, on: server)
            #expect(answer.status == 400, "\(path): \(answer.status)")
            #expect(answer.string("error") == code, "\(path)")
        }
        let recorded = try await Self.accessEvents(server)
        #expect(recorded.count == refused.count)
        #expect(recorded.allSatisfy { $0.0 == "failure" && $0.1 == "invalid_request" && $0.2 == "key:siem-audit" })
    }

    /// After retention, a proof of a dropped position is 410 `dropped` and recorded as refused; a retained
    /// position still proves, and so do the tiles that straddle the minimum index (tlog-tiles refuses only full
    /// tiles that end at or below it).
    @Test func aProofIntoDroppedMonthsIs410AndTheStraddlingTilesStillServe() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let store = server.components.store
        let owner = try await server.database.connect()
        try await owner.execute(
            """
            SELECT authlog.create_log_partitions('2024-01-01', '2024-01-01');
            UPDATE authlog.log_epoch SET month = '2024-01-01'
            """
        )
        // A new event (and event id) each time.
        let failed = {
            EventEnvelope(
                stream: StreamName(category: "signin", id: "apple"),
                type: .signinFailed,
                outcome: .failure,
                reason: "expired",
                provider: "apple",
                data: .members(["reason": .string("expired")])
            )
        }
        for _ in 0..<5 { try await store.append(failed()) }
        try await store.sealPending()
        try await LogMonths.prepare(on: owner)
        try await store.append(failed())
        try await store.sealPending()
        try await owner.execute(
            """
            INSERT INTO authlog.checkpoints (tree_size, root, key_name, note, signed_at)
            SELECT size, root, 'test', 'test', now() FROM authlog.log_head
            """
        )
        let exports = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-exp-\(UUID())").path
        try PlaceholderExport.write(month: "2024-01", first: 1, last: 5, in: exports)
        let plan = try await Retention.plan(keepMonths: 12, exportDirectory: exports, on: owner)
        #expect(try await Retention.apply(plan, actor: "test", on: owner))

        let dropped = try await server.client.send("GET", "/v1/log/proof/inclusion?position=2")
        #expect(dropped.status == 410 && dropped.string("error") == "dropped")
        let kept = try await server.client.send("GET", "/v1/log/proof/inclusion?position=6")
        #expect(kept.status == 200)
        let proofReads = try await Self.accessEvents(server).filter { $0.3.hasPrefix("proof") }
        #expect(proofReads.isEmpty, "proofs are public hashes: neither the refused one nor the served one is recorded")
        // Positions 1…5 dropped: the minimum index is 5, and the level-0 tile and the entry bundle that hold both
        // dropped and kept leaves are still served (the dropped values from the retention anchor), each entry
        // hashing to its leaf.
        let minimum = try await server.client.send("GET", "/minimum-index")
        #expect(minimum.status == 200 && minimum.body == Array("5\n".utf8))
        let leaves = try await server.client.send("GET", "/tile/0/000.p/6")
        let bundle = try await server.client.send("GET", "/tile/entries/000.p/6")
        #expect(leaves.status == 200 && leaves.body.count == 6 * 32)
        #expect(bundle.status == 200 && bundle.body.count == 6 * 42)
        for index in 0..<6 {
            let entry = Array(bundle.body[index * 42 + 2..<index * 42 + 42])
            #expect(entry.prefix(8) == [0, 0, 0, 0, 0, 0, 0, UInt8(index + 1)], "entry \(index) names its position")
            #expect(SHA256.hash([0], entry) == Array(leaves.body[index * 32..<index * 32 + 32]), "entry \(index)")
        }
        for path in ["/tile/0/000.p/1", "/tile/entries/000.p/5"] {
            #expect(try await server.client.send("GET", path).status == 200, "\(path)")
        }
    }

    @Test func filtersAndTheExportFormat() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let key = try #require(try await Self.makeKeys(on: server)["audit"])
        let store = server.components.store
        let user = UUID()
        for provider in ["apple", "google", "apple"] {
            try await store.append(
                ExportRequests.failedSignin(provider: provider, user: provider == "google" ? user : nil)
            )
        }
        try await store.sealPending()
        let apple = try await ExportRequests.get("/v1/events?provider=apple", key: key, on: server)
        guard case .array(let events)? = apple.json["events"] else {
            Issue.record("no events array: \(apple.status)")
            return
        }
        #expect(events.map { $0["provider"]?.stringValue } == ["apple", "apple"])
        let first = try #require(events.first)
        let position = try #require(first["position"].flatMap { Int64($0.canonicalText) })
        let leaf = try #require(first["leaf_hash"]?.stringValue)
        let proof = try await server.client.send("GET", "/v1/log/proof/inclusion?position=\(position)")
        #expect(proof.status == 200)
        let refusedProof = try await server.client.send("GET", "/v1/log/proof/inclusion?position=999999")
        #expect(refusedProof.status == 400 && refusedProof.string("error") == "out_of_range")
        let proofReads = try await Self.accessEvents(server).filter { $0.3.hasPrefix("proof") }
        #expect(proofReads.isEmpty, "anonymous proofs append no event")
        #expect(leaf.count == 64 && first["digest"]?.stringValue?.count == 64)
        #expect(first["recorded_at"]?.stringValue != nil && first["event_id"]?.stringValue != nil)
        let byUser = try await ExportRequests.get("/v1/events?user_id=\(user.uuidString)", key: key, on: server)
        guard case .array(let mine)? = byUser.json["events"] else {
            Issue.record("no events array")
            return
        }
        #expect(mine.map { $0["provider"]?.stringValue } == ["google"])
        let reads = try await Self.accessEvents(server).map(\.3)
        #expect(reads.contains { $0.hasSuffix("provider=apple") })
        #expect(reads.contains { $0.hasSuffix("user_id=\(user.uuidString.lowercased())") })
    }

    /// 32 appenders write while a consumer pages through `GET /v1/events`, stopping and resuming from its
    /// cursor at 20 random moments (a fresh client each time, keeping only the cursor); at the end it has
    /// every sealed event exactly once, in order.
    @Test(.timeLimit(.minutes(10)))
    func aConsumerResumingFromItsCursorDuringAppendsSeesTheSealedSequenceExactly() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let key = try #require(try await Self.makeKeys(on: server)["audit"])
        let store = server.components.store
        let appendsDone = Flag()
        let appends = Task {
            defer { Task { await appendsDone.set() } }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for appender in 0..<32 {
                    group.addTask {
                        for index in 0..<40 {
                            try await store.append(
                                EventEnvelope(
                                    stream: StreamName(category: "signin", id: "p\(appender)"),
                                    type: .signinFailed,
                                    outcome: .failure,
                                    reason: "expired",
                                    provider: "p\(appender)",
                                    data: .members(["reason": .string("expired"), "attempt": .number(String(index))])
                                )
                            )
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        var random = SeededRandom(seed: 11)
        var cursor: Int64 = 0
        var seen: [(position: Int64, eventID: String)] = []
        var resumptions = 0
        var iteration = 0
        var client = HTTPTestClient(baseURL: server.client.baseURL)
        var target: Int64?
        while target.map({ cursor < $0 }) ?? true {
            iteration += 1
            // Every other page, until 20 resumptions: the cursors differ because the page sizes are random.
            if resumptions < 20 && iteration.isMultiple(of: 2) {
                client = HTTPTestClient(baseURL: server.client.baseURL)
                resumptions += 1
            }
            let limit = Int.random(in: 1...40, using: &random)
            let answer = try await client.send(
                "GET",
                "/v1/events?after=\(cursor)&limit=\(limit)",
                headers: [("Authorization", "Bearer \(key)")]
            )
            #expect(answer.status == 200)
            guard case .array(let events)? = answer.json["events"],
                let next = answer.json["next"].flatMap({ Int64($0.canonicalText) })
            else {
                Issue.record("a page without events or next: \(answer.status)")
                return
            }
            for event in events {
                guard let position = event["position"].flatMap({ Int64($0.canonicalText) }),
                    let id = event["event_id"]?.stringValue
                else { continue }
                seen.append((position, id))
            }
            #expect(next >= cursor, "the cursor never goes back")
            cursor = next
            // Once the appends are over, everything sealed by then is the target (the consumer's own reads keep
            // adding audit events after it).
            if target == nil, await appendsDone.isSet {
                try await store.sealPending()
                target = try await server.database.scalar("SELECT size FROM authlog.log_head")
            }
        }
        try await appends.value
        let expected = try await server.database.connect().query(
            "SELECT position, event_id::text FROM authlog.events WHERE position <= \(cursor) ORDER BY position"
        ).rows.map { (try $0.decode(Int64.self, at: 0), try $0.decode(String.self, at: 1)) }
        #expect(resumptions == 20)
        #expect(seen.count == expected.count, "every sealed event once: \(seen.count) of \(expected.count)")
        #expect(seen.map(\.position) == expected.map(\.0), "in position order, no gap, no repeat")
        #expect(seen.map(\.eventID) == expected.map(\.1))
        #expect(seen.count > 32 * 40, "the appends and the consumer's own audit events")
    }
}

/// A flag one task sets and another reads.
private actor Flag {
    private(set) var isSet = false
    func set() { self.isSet = true }
}
