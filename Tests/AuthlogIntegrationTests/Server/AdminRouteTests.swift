import AuthlogCore
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// The operator routes: revoking a session or a user's sessions (scope `admin`) and listing a user's
/// sessions (scope `audit`).
@Suite(.enabled(if: TestDatabase.isAvailable))
struct AdminRouteTests {
    private static func keys(on server: ServerHarness) async throws -> [APIKeyScope: String] {
        let store = APIKeyStore(pool: server.components.store.pool)
        var keys: [APIKeyScope: String] = [:]
        for scope in APIKeyScope.allCases { keys[scope] = try await store.create(name: "ops-\(scope)", scope: scope) }
        return keys
    }

    private static func call(
        _ method: String,
        _ path: String,
        key: String?,
        on server: ServerHarness
    ) async throws
        -> HTTPTestClient.Answer
    {
        try await server.client.send(
            method,
            path,
            headers: ServerHarness.appHeaders + (key.map { [("Authorization", "Bearer \($0)")] } ?? [])
        )
    }

    @Test func anAdminRevokesOneSessionThenTheRestAndTheRefreshTokensDie() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let keys = try await Self.keys(on: server)
        let first = try await server.signInDev("mallory-victim")
        let second = try await server.signInDev("mallory-victim")
        #expect(first.userID == second.userID)

        let one = try await Self.call("POST", "/v1/sessions/\(first.sessionID)/revoke", key: keys[.admin], on: server)
        #expect(one.status == 200, "\(one.json.canonicalText)")
        #expect(one.json["revoked"] == .bool(true))
        #expect(try await server.refresh(first.refreshToken).status == 401, "the revoked session's token is dead")
        let again = try await Self.call("POST", "/v1/sessions/\(first.sessionID)/revoke", key: keys[.admin], on: server)
        #expect(again.status == 200 && again.json["revoked"] == .bool(false), "revoking twice ends nothing")

        let all = try await Self.call("POST", "/v1/users/\(first.userID)/revoke", key: keys[.admin], on: server)
        #expect(all.status == 200)
        #expect(all.json["sessions_revoked"]?.canonicalText == "1")
        #expect(try await server.refresh(second.refreshToken).status == 401)

        let revoked = try await server.events(ofType: "session.revoked")
        #expect(revoked.count == 2, "one session.revoked per session, none for the repeat")
        #expect(revoked.allSatisfy { $0.reason == "admin" && $0.data["actor"]?.stringValue == "key:ops-admin" })

        let listed = try await Self.call("GET", "/v1/users/\(first.userID)/sessions", key: keys[.audit], on: server)
        #expect(listed.status == 200)
        guard case .array(let sessions)? = listed.json["sessions"] else {
            Issue.record("no sessions: \(listed.json.canonicalText)")
            return
        }
        #expect(sessions.count == 2)
        #expect(
            sessions.allSatisfy { $0["state"]?.stringValue == "revoked" && $0["end_reason"]?.stringValue == "admin" }
        )
        let reads = try await server.events(ofType: "audit.accessed").filter { $0.outcome == "success" }
        #expect(
            reads.map { $0.data["query"]?.stringValue } == [
                "revoke session \(first.sessionID.lowercased): already ended",
                "sessions user_id=\(first.userID.lowercased)",
            ],
            "the repeat, which ended nothing, is recorded as a read"
        )
        #expect(reads.map { $0.data["actor"]?.stringValue } == ["key:ops-admin", "key:ops-audit"])
    }

    @Test func everyOperatorRouteChecksItsScope() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let keys = try await Self.keys(on: server)
        let revokedKey = try await APIKeyStore(pool: server.components.store.pool).create(
            name: "ops-old",
            scope: .admin
        )
        _ = try await APIKeyStore(pool: server.components.store.pool).revoke(name: "ops-old")
        let user = try await server.signInDev("bob")
        let routes: [(String, String, APIKeyScope)] = [
            ("POST", "/v1/sessions/\(user.sessionID)/revoke", .admin),
            ("POST", "/v1/users/\(user.userID)/revoke", .admin),
            ("GET", "/v1/users/\(user.userID)/sessions", .audit),
            ("GET", "/v1/events", .audit),
            ("POST", "/v1/events", .ingest),
            ("GET", "/v1/reports/signins", .audit),
        ]
        for (method, path, needed) in routes {
            for scope in APIKeyScope.allCases where scope != needed {
                let answer = try await Self.call(method, path, key: keys[scope], on: server)
                #expect(answer.status == 403 && answer.string("error") == "insufficient_scope", "\(path) with \(scope)")
            }
            for key in [revokedKey, "alk_nothing", nil] as [String?] {
                let answer = try await Self.call(method, path, key: key, on: server)
                #expect(
                    answer.status == 401 && answer.string("error") == "invalid_api_key",
                    "\(path) with \(key ?? "-")"
                )
            }
        }
        #expect(try await server.count("SELECT count(*) FROM authlog.sessions WHERE state = 'active'") == 1)
        try await server.flushRefusals()
        let refused = try await server.count(
            """
            SELECT sum(coalesce((data->>'count')::int, 1)) FROM authlog.events
            WHERE type = 'audit.accessed' AND outcome = 'failure'
            """
        )
        #expect(refused == Int64(routes.count * 5), "every refused call is counted")
        let events = try await server.count(
            "SELECT count(*) FROM authlog.events WHERE type = 'audit.accessed' AND outcome = 'failure'"
        )
        // Five actors (three keys of other scopes, the revoked key, anonymous), each a first and a summary.
        #expect(events == 10, "not one event each: a first and a summary per actor and address, \(events)")
    }

    @Test func unknownIdsAre404AndBadIds400() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let keys = try await Self.keys(on: server)
        let unknown = UUID()
        #expect(
            try await Self.call("POST", "/v1/sessions/\(unknown)/revoke", key: keys[.admin], on: server).status == 404
        )
        #expect(try await Self.call("POST", "/v1/users/\(unknown)/revoke", key: keys[.admin], on: server).status == 404)
        #expect(
            try await Self.call("GET", "/v1/users/\(unknown)/sessions", key: keys[.audit], on: server).status == 404
        )
        #expect(try await Self.call("POST", "/v1/sessions/nope/revoke", key: keys[.admin], on: server).status == 400)
    }

    /// `GET /v1/reports/{kind}` answers what the report query answers, in JSON and CSV, and records every
    /// report served and every refused one.
    @Test func reportsAreServedToAuditKeysAndEveryCallIsRecorded() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let keys = try await Self.keys(on: server)
        let alice = try await server.signInDev("alice")
        _ = try await server.signInDev("alice")
        _ = try await server.signInDev("bob")
        _ = try await Self.call("POST", "/v1/sessions/\(alice.sessionID)/revoke", key: keys[.admin], on: server)
        let pool = server.components.store.pool
        for (kind, by) in [("signins", "provider"), ("sessions", "provider,client"), ("revocations", "reason")] {
            let answer = try await Self.call("GET", "/v1/reports/\(kind)?by=\(by)", key: keys[.audit], on: server)
            #expect(answer.status == 200, "\(kind): \(answer.json.canonicalText)")
            let since = try #require(answer.string("since").flatMap { Timestamp(iso8601: $0) })
            let until = try #require(answer.string("until").flatMap { Timestamp(iso8601: $0) })
            let query = try ReportQuery(
                kind: try #require(Report.Kind(rawValue: kind)),
                since: since,
                until: until,
                dimensions: by.split(separator: ",").compactMap { Report.Dimension(rawValue: String($0)) }
            )
            let report = try await pool.withConnection { try await query.run(on: $0) }
            #expect(answer.json.canonicalText == ReportText.json(report).canonicalText, "\(kind)")
            #expect(!report.rows.isEmpty, "\(kind) has rows")
        }
        let sessions = try await Self.call("GET", "/v1/reports/sessions", key: keys[.audit], on: server)
        #expect(sessions.json["total"]?["started"]?.canonicalText == "3")
        #expect(sessions.json["total"]?["ended_revocation"]?.canonicalText == "1")
        #expect(sessions.json["total"]?["active_at_end"]?.canonicalText == "2")
        let csv = try await Self.call("GET", "/v1/reports/failures?format=csv", key: keys[.audit], on: server)
        let csvText = String(decoding: csv.body, as: UTF8.self)
        #expect(csv.status == 200 && csvText.hasPrefix("reason,failed\n"), "\(csvText)")

        let refusals = [
            "/v1/reports/logins", "/v1/reports/sessions?by=reason", "/v1/reports/signins?since=yesterday",
            "/v1/reports/signins?format=xml", "/v1/reports/signins?since=2026-11-02&until=2026-11-01",
            "/v1/reports/signins?by=" + String(repeating: "day,", count: 100),
        ]
        for path in refusals {
            let answer = try await Self.call("GET", path, key: keys[.audit], on: server)
            #expect(answer.status == 400 && answer.string("error") == "invalid_request", "\(path)")
        }
        let recorded = try await server.events(ofType: "audit.accessed")
        #expect(recorded.filter { $0.outcome == "failure" && $0.reason == "invalid_request" }.count == refusals.count)
        #expect(
            recorded.filter { $0.outcome == "success" && $0.data["query"]?.stringValue?.hasPrefix("report ") == true }
                .count == 5
        )
    }
}
