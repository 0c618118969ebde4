import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// `POST /v1/events`: events from other systems behind an `ingest` key, idempotent by `event_id`.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct EventIngestTests {
    private static func event(_ id: UUID, provider: String = "apple", source: JSONValue? = .string("crm")) -> JSONValue
    {
        var data: [(name: String, value: JSONValue)] = [("reason", .string("expired"))]
        if let source { data.append(("source", source)) }
        return .object([
            ("event_id", .string(id.uuidString)),
            ("type", .string("signin.failed")),
            ("stream", .string("signin-\(provider)")),
            ("occurred_at", .string("2026-11-01T10:00:00Z")),
            ("reason", .string("expired")),
            ("provider", .string(provider)),
            ("data", .object(data)),
        ])
    }

    private static func post(
        _ body: JSONValue,
        key: String?,
        on server: ServerHarness
    ) async throws
        -> HTTPTestClient.Answer
    {
        try await server.client.post(
            "/v1/events",
            body,
            headers: ServerHarness.appHeaders + (key.map { [("Authorization", "Bearer \($0)")] } ?? [])
        )
    }

    @Test func aRepeatedIngestAnswersWithTheSamePositionsAndStoresNothingTwice() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let keys = APIKeyStore(pool: server.components.store.pool)
        let key = try await keys.create(name: "crm", scope: .ingest)
        let ids = [UUID(), UUID()]
        let body = JSONValue.array([Self.event(ids[0]), Self.event(ids[1], provider: "google")])
        let first = try await Self.post(body, key: key, on: server)
        #expect(first.status == 200, "\(first.json.canonicalText)")
        let again = try await Self.post(body, key: key, on: server)
        #expect(again.status == 200)
        guard case .array(let firstEvents)? = first.json["events"], case .array(let againEvents)? = again.json["events"]
        else {
            Issue.record("no events in the answers")
            return
        }
        #expect(firstEvents.map { $0["position"]?.canonicalText } == againEvents.map { $0["position"]?.canonicalText })
        #expect(firstEvents.allSatisfy { $0["position"]?.isNull == false })
        #expect(firstEvents.map { $0["stored"] } == [.bool(true), .bool(true)])
        #expect(againEvents.map { $0["stored"] } == [.bool(false), .bool(false)])
        let stored = try await server.count(
            "SELECT count(*) FROM authlog.events WHERE event_id = ANY(\(ArrayLiteral(ids.map(\.uuidString)))::uuid[])"
        )
        #expect(stored == 2, "each event once")
        let ingestedBy = try await server.count(
            "SELECT count(*) FROM authlog.events WHERE data->>'ingested_by' = 'key:crm' AND data->>'source' = 'crm'"
        )
        #expect(ingestedBy == 2, "the key that sent them is their actor")
    }

    @Test func aBadEventIsRefusedByItsIndexAndNothingOfTheCallIsStored() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let key = try await APIKeyStore(pool: server.components.store.pool).create(
            name: "crm",
            scope: .ingest
        )
        let good = UUID()
        var withoutID = Self.event(UUID())
        if case .object(let members) = withoutID { withoutID = .object(members.filter { $0.name != "event_id" }) }
        let cases: [(JSONValue, Int, String)] = [
            (.array([Self.event(good), Self.event(UUID(), source: nil)]), 1, "data.source"),
            (.array([Self.event(good), withoutID]), 1, "event_id is required"),
            (.array([Self.event(good), .object([("type", .string("nope"))])]), 1, "type"),
            (Self.event(good, source: .string("")), 0, "data.source"),
            (.array([]), 0, "1 to 500"),
        ]
        for (body, index, words) in cases {
            let answer = try await Self.post(body, key: key, on: server)
            #expect(answer.status == 422, "\(words): \(answer.status)")
            #expect(answer.string("error") == "invalid_event")
            #expect(answer.json["index"]?.canonicalText == String(index), "\(words)")
            #expect(answer.string("error_description")?.contains(words) == true, "\(answer.json.canonicalText)")
        }
        #expect(try await server.count("SELECT count(*) FROM authlog.events WHERE type = 'signin.failed'") == 0)
        let refusals = try await server.count(
            "SELECT count(*) FROM authlog.events WHERE type = 'audit.accessed' AND reason = 'invalid_request'"
        )
        #expect(refusals == Int64(cases.count), "every refused call is recorded")
    }

    @Test func onlyAnIngestKeyMayIngest() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let keys = APIKeyStore(pool: server.components.store.pool)
        var issued: [APIKeyScope: String] = [:]
        for scope in APIKeyScope.allCases { issued[scope] = try await keys.create(name: "k-\(scope)", scope: scope) }
        let revoked = try await keys.create(name: "gone", scope: .ingest)
        _ = try await keys.revoke(name: "gone")
        let body = Self.event(UUID())
        let cases: [(String?, Int)] = [
            (issued[.ingest], 200), (issued[.audit], 403), (issued[.admin], 403), (revoked, 401),
            ("alk_unknown", 401), (nil, 401),
        ]
        for (key, status) in cases {
            #expect(try await Self.post(body, key: key, on: server).status == status, "\(key ?? "no key")")
        }
        #expect(try await server.count("SELECT count(*) FROM authlog.events WHERE type = 'signin.failed'") == 1)
        try await server.flushRefusals()
        let refused = try await server.count(
            """
            SELECT sum(coalesce((data->>'count')::int, 1)) FROM authlog.events
            WHERE type = 'audit.accessed' AND outcome = 'failure'
            """
        )
        #expect(refused == 5, "each refused key is counted once")
    }

    /// An ingest key cannot grant access: a `token.issued` naming a refresh-token hash the attacker chose for
    /// the victim's session, and an `identity.linked` attaching the attacker's identity to the victim, are
    /// stored but change nothing; the chosen token is refused.
    @Test func ingestedEventsAreRecordedButNeverGrantAccess() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let key = try await APIKeyStore(pool: server.components.store.pool).create(
            name: "crm",
            scope: .ingest
        )
        let victim = try await server.signInDev("victim")
        let chosen = "alr_attacker-chosen-refresh-token"
        let forged: JSONValue = .object([
            ("event_id", .string(UUID().uuidString)),
            ("type", .string("token.issued")),
            ("stream", .string("session-\(victim.sessionID.lowercased)")),
            ("occurred_at", .string(Timestamp.now().description)),
            ("user_id", .string(victim.userID.uuidString)),
            ("session_id", .string(victim.sessionID.uuidString)),
            (
                "data",
                .members([
                    "source": .string("crm"), "access_token_id": .string(UUID().uuidString),
                    "access_token_expires_at": .string(Timestamp.now().adding(seconds: 600).description),
                    "refresh_token_id": .string(UUID().uuidString),
                    "refresh_token_hash": .string(Hex.encode(SHA256.hash(Array(chosen.utf8)))),
                    "family_id": .string(UUID().uuidString),
                    "refresh_token_expires_at": .string(Timestamp.now().adding(seconds: 86_400).description),
                    "kind": .string("remember_me"),
                ])
            ),
        ])
        let answer = try await Self.post(forged, key: key, on: server)
        #expect(answer.status == 200, "stored: \(answer.json.canonicalText)")
        #expect(try await server.refresh(chosen).status == 401, "the forged token grants nothing")
        #expect(
            try await server.count("SELECT count(*) FROM authlog.refresh_tokens WHERE user_id = \(victim.userID)") == 1
        )
        #expect(try await server.refresh(victim.refreshToken).status == 200, "the victim's own session still works")
    }

    @Test func hostileIngestBodiesAre422AndNever500() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let key = try await APIKeyStore(pool: server.components.store.pool).create(
            name: "crm",
            scope: .ingest
        )
        func variant(_ change: (inout [(name: String, value: JSONValue)]) -> Void) -> JSONValue {
            guard case .object(var members) = Self.event(UUID()) else { return .null }
            change(&members)
            return .object(members)
        }
        let cases: [(String, JSONValue)] = [
            ("a null event_id", variant { $0 = $0.map { $0.name == "event_id" ? ($0.name, .null) : $0 } }),
            (
                "year 0 through an offset",
                variant {
                    $0 = $0.map { $0.name == "occurred_at" ? ($0.name, .string("0001-01-01T00:00:00+01:00")) : $0 }
                }
            ),
            (
                "authlog's own audit type",
                variant { $0 = $0.map { $0.name == "type" ? ($0.name, .string("audit.accessed")) : $0 } }
            ),
        ]
        for (label, body) in cases {
            let answer = try await Self.post(body, key: key, on: server)
            #expect(answer.status == 422, "\(label): \(answer.status) \(answer.json.canonicalText)")
        }
        #expect(try await server.count("SELECT count(*) FROM authlog.events WHERE data->>'source' = 'crm'") == 0)
    }
}
