import AuthlogCore
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// The user's own sessions and activity over HTTP and PostgreSQL: `GET /v1/me/sessions`,
/// `DELETE /v1/me/sessions/{id}`, `POST /v1/me/sessions/revoke-others`, `GET /v1/me/activity`.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct OwnSessionsHTTPTests {
    /// The successful `audit.accessed` events of `user`.
    static func reads(of user: SignedIn, on harness: ServerHarness) async throws -> [StoredEvent] {
        try await harness.events(ofType: "audit.accessed").filter {
            $0.data["actor"]?.stringValue == "user:\(user.userID.lowercased)"
        }
    }

    @Test func theListMarksTheCallersSessionAndAnotherUsersSessionIsNotFound() async throws {
        try await ServerHarness.run { harness in
            let phone = try await harness.signInDev("alice")
            let laptop = try await harness.signInDev("alice")
            let bob = try await harness.signInDev("bob")
            _ = try await harness.refresh(phone.refreshToken)

            let listed = try await harness.send("GET", "/v1/me/sessions", as: laptop)
            #expect(listed.status == 200, "\(listed.json.canonicalText)")
            let sessions = try #require(listed.json["sessions"]?.arrayValue)
            #expect(
                sessions.compactMap { $0["session_id"]?.stringValue } == [laptop, phone].map(\.sessionID.lowercased)
            )
            #expect(sessions.map { $0["current"] } == [.bool(true), .bool(false)])
            #expect(sessions.allSatisfy { $0["provider"]?.stringValue == "dev" })
            #expect(sessions.allSatisfy { $0["ip"]?.stringValue == "203.0.113.7" })
            #expect(sessions.allSatisfy { $0["user_agent"]?.stringValue == "ExampleApp/1.0 (iPhone)" })
            #expect(sessions.allSatisfy { $0["started_at"]?.stringValue.flatMap(Timestamp.init(iso8601:)) != nil })
            #expect(sessions[0]["last_refreshed_at"]?.isNull == true)
            #expect(sessions[1]["last_refreshed_at"]?.stringValue != nil)

            var answers: [HTTPTestClient.Answer] = []
            for id in [bob.sessionID.lowercased, UUID().uuidString.lowercased(), "not-a-uuid", "revoke-others"] {
                answers.append(try await harness.send("DELETE", "/v1/me/sessions/\(id)", as: laptop))
            }
            #expect(answers.map(\.status) == [404, 404, 404, 404])
            #expect(answers.allSatisfy { $0.string("error") == "not_found" })
            #expect(Set(answers.map { $0.string("error_description") }).count == 1)
            let bobs = try await harness.send("GET", "/v1/me/sessions", as: bob)
            #expect(bobs.json["sessions"]?.arrayValue?.count == 1, "bob's session is alive")
            #expect(try await harness.refresh(bob.refreshToken).status == 200)

            let reads = try await Self.reads(of: laptop, on: harness)
            #expect(reads.map { $0.data["query"]?.stringValue } == ["me sessions"])
            #expect(reads.first?.outcome == "success")
        }
    }

    @Test func endingASessionAndRevokeOthersLeaveOnlyTheCallers() async throws {
        try await ServerHarness.run { harness in
            let first = try await harness.signInDev("alice")
            let second = try await harness.signInDev("alice")
            let third = try await harness.signInDev("alice")
            let fourth = try await harness.signInDev("alice")

            let ended = try await harness.send("DELETE", "/v1/me/sessions/\(first.sessionID.lowercased)", as: second)
            #expect(ended.status == 204)
            #expect(try await harness.refresh(first.refreshToken).status == 401)

            let others = try await harness.send("POST", "/v1/me/sessions/revoke-others", as: second)
            #expect(others.status == 200)
            #expect(others.json["revoked"]?.integerValue == 2)
            for gone in [third, fourth] { #expect(try await harness.refresh(gone.refreshToken).status == 401) }

            let listed = try await harness.send("GET", "/v1/me/sessions", as: second)
            let sessions = try #require(listed.json["sessions"]?.arrayValue)
            #expect(sessions.compactMap { $0["session_id"]?.stringValue } == [second.sessionID.lowercased])
            #expect(sessions.first?["current"] == .bool(true))

            let revoked = try await harness.events(ofType: "session.revoked")
            #expect(Set(revoked.compactMap(\.sessionID)) == [first.sessionID, third.sessionID, fourth.sessionID])
            #expect(revoked.allSatisfy { $0.reason == "user_revoked" && $0.data["actor"]?.stringValue == "user" })
        }
    }

    @Test func activityListsAFailedProofPagesWithAfterAndRefusesBadLimits() async throws {
        try await ServerHarness.run { harness in
            let alice = try await harness.signInDev("alice")
            let forged: JSONValue = .members(["provider": "apple", "id_token": "not.a.token", "raw_nonce": "x"])
            let refused = try await harness.send("POST", "/v1/me/reauthenticate", forged, as: alice)
            #expect(refused.status == 401)
            var refresh = try await harness.refresh(alice.refreshToken)
            for _ in 0..<2 {
                let token = try #require(refresh.string("refresh_token"))
                refresh = try await harness.refresh(token)
            }
            _ = try await harness.signInDev("bob")

            let all = try await harness.send("GET", "/v1/me/activity", as: alice)
            #expect(all.status == 200, "\(all.json.canonicalText)")
            let items = try #require(all.json["activity"]?.arrayValue)
            #expect(all.json["next"]?.isNull == true)
            #expect(
                items.compactMap { $0["type"]?.stringValue } == [
                    "token.refreshed", "token.refreshed", "token.refreshed", "signin.failed", "signin.succeeded",
                ]
            )
            let failed = try #require(items.first { $0["type"]?.stringValue == "signin.failed" })
            #expect(failed["outcome"]?.stringValue == "failure")
            #expect(failed["provider"]?.stringValue == "apple")
            #expect(failed["ip"]?.stringValue == "203.0.113.7")
            #expect(failed["user_agent"]?.stringValue == "ExampleApp/1.0 (iPhone)")
            let id = try #require(failed["event_id"]?.stringValue)
            #expect(failed["receipt_url"]?.stringValue == "/v1/log/receipt/\(id)")
            #expect(failed["time"]?.stringValue.flatMap(Timestamp.init(iso8601:)) != nil)
            // Each position is the event's in the log, null while it is not sealed (the writer may seal its own
            // batch, so some may be either way here; after sealPending, every one is a number).
            var positions = try await Self.positions(of: alice, on: harness)
            for item in items {
                let id = try #require(item["event_id"]?.stringValue)
                #expect(item["position"] == positions[id].map { .number(String($0)) } ?? .null, "\(id)")
            }

            var paged: [String] = []
            var path = "/v1/me/activity?limit=2"
            for _ in 0..<5 {
                let page = try await harness.send("GET", path, as: alice)
                #expect(page.status == 200)
                paged += page.json["activity"]?.arrayValue?.compactMap { $0["event_id"]?.stringValue } ?? []
                guard let next = page.json["next"]?.stringValue else { break }
                path = "/v1/me/activity?limit=2&after=\(next)"
            }
            #expect(paged == items.compactMap { $0["event_id"]?.stringValue })

            for query in ["limit=0", "limit=201", "limit=abc", "after=garbage", "after=", "limit=1&limit=2"] {
                let bad = try await harness.send("GET", "/v1/me/activity?\(query)", as: alice)
                #expect(bad.status == 400, "\(query)")
                #expect(bad.string("error") == "invalid_request", "\(query)")
            }
            let reads = try await Self.reads(of: alice, on: harness)
            #expect(reads.filter { $0.outcome == "success" }.count == 4)
            #expect(reads.filter { $0.outcome == "failure" }.count == 6)
            #expect(
                reads.allSatisfy {
                    $0.stream == "audit-access" && $0.data["query"]?.stringValue?.hasPrefix("me activity") == true
                }
            )
            try await harness.components.store.sealPending()
            positions = try await Self.positions(of: alice, on: harness)
            let sealed = try #require(
                try await harness.send("GET", "/v1/me/activity", as: alice).json["activity"]?.arrayValue
            )
            #expect(
                sealed.compactMap { $0["event_id"]?.stringValue } == items.compactMap { $0["event_id"]?.stringValue }
            )
            for item in sealed {
                let id = try #require(item["event_id"]?.stringValue)
                let position = try #require(positions[id], "sealed: \(id)")
                #expect(item["position"]?.integerValue == position, "\(id)")
            }
        }
    }

    /// The positions of the user's sealed events, by event id.
    private static func positions(of user: SignedIn, on harness: ServerHarness) async throws -> [String: Int64] {
        try await harness.database.connect().query(
            "SELECT event_id::text, position FROM authlog.events WHERE user_id = \(user.userID)"
        ).rows.reduce(into: [String: Int64]()) {
            $0[try $1.decode(String.self, at: 0)] = try $1.decode(Int64.self, at: 1)
        }
    }

    @Test func withoutAValidBearerEveryRouteIs401() async throws {
        try await ServerHarness.run { harness in
            let routes = [
                ("GET", "/v1/me/sessions"), ("DELETE", "/v1/me/sessions/\(UUID().uuidString)"),
                ("POST", "/v1/me/sessions/revoke-others"), ("GET", "/v1/me/activity"),
                ("POST", "/v1/me/activity/\(UUID().uuidString.lowercased())/not-me"),
            ]
            for (method, path) in routes {
                for headers in [[], [("Authorization", "Bearer not-a-token")]] {
                    let answer = try await harness.client.send(method, path, headers: headers)
                    #expect(answer.status == 401, "\(method) \(path)")
                    #expect(answer.string("error") == "invalid_token", "\(method) \(path)")
                }
            }
            #expect(try await harness.events(ofType: "audit.accessed").isEmpty)
        }
    }

    /// "Not me" on a sign-in the user sees in their activity: every session of theirs ends, the caller's too,
    /// and the report is in the log; another user's entry is 404 and ends nothing.
    @Test func notMeEndsEverySessionOfTheUserAndIsRecorded() async throws {
        try await ServerHarness.run { harness in
            let phone = try await harness.signInDev("alice")
            let intruder = try await harness.signInDev("alice")
            let bob = try await harness.signInDev("bob")
            let activity = try await harness.send("GET", "/v1/me/activity", as: phone)
            let entries = try #require(activity.json["activity"]?.arrayValue)
            // Newest first: the intruder's sign-in.
            let reported = try #require(
                entries.first { $0["type"]?.stringValue == "signin.succeeded" }?["event_id"]?.stringValue
            )
            let bobsEntry = try #require(
                try await harness.send("GET", "/v1/me/activity", as: bob).json["activity"]?.arrayValue?.first?[
                    "event_id"
                ]?.stringValue
            )
            let refused = try await harness.send("POST", "/v1/me/activity/\(bobsEntry)/not-me", as: phone)
            #expect(refused.status == 404 && refused.string("error") == "not_found")
            #expect(try await harness.events(ofType: "session.revoked").isEmpty)

            let answer = try await harness.send("POST", "/v1/me/activity/\(reported)/not-me", as: phone)
            #expect(answer.status == 200, "\(answer.json.canonicalText)")
            let ended = try #require(answer.json["sessions_ended"]?.arrayValue).compactMap(\.stringValue)
            #expect(Set(ended) == Set([phone, intruder].map(\.sessionID.lowercased)))
            for gone in [phone, intruder] { #expect(try await harness.refresh(gone.refreshToken).status == 401) }
            #expect(try await harness.refresh(bob.refreshToken).status == 200)
            let revoked = try await harness.events(ofType: "session.revoked")
            #expect(revoked.count == 2 && revoked.allSatisfy { $0.reason == "not_me" })
            let report = try #require(try await harness.events(ofType: "account.not_me_reported").first)
            #expect(report.userID == phone.userID && report.data["reported_event_id"]?.stringValue == reported)
            #expect(report.data["reported_type"]?.stringValue == "signin.succeeded")
            let refusals = try await harness.events(ofType: "account.action_refused")
            #expect(refusals.map { $0.data["action"]?.stringValue } == ["report_not_me"])
        }
    }

    @Test func theActivityQueryIsServedByTheIndexInItsOrderWithoutScanningTheLog() async throws {
        try await ServerHarness.run { harness in
            let alice = try await harness.signInDev("alice")
            let connection = try await harness.database.connect()
            // With scans and sorts priced out, a plan without a sequential scan or a Sort node (a Merge Append of
            // the months keeps their order) exists only if the index serves both the filter and the order.
            for setting in ["enable_seqscan", "enable_bitmapscan", "enable_sort"] {
                try await connection.query(SQLQuery(unsafeSQL: "SET \(setting) = off"))
            }
            let cursor = ActivityPosition(occurredAt: .now(), eventID: UUID())
            for before in [nil, cursor] {
                let query = OwnAccountQueries.activityQuery(
                    of: alice.userID,
                    types: EventType.userActivity,
                    before: before,
                    limit: 51
                )
                var explain = SQLQuery(unsafeSQL: "EXPLAIN " + query.sql)
                for bind in query.binds { _ = explain.bind(bind) }
                let plan = try await connection.query(explain).rows.map { try $0.decode(String.self, at: 0) }
                    .joined(separator: "\n")
                #expect(plan.contains("Index Scan Backward"), "\(plan)")
                #expect(plan.contains("user_id_occurred_at_event_id"), "\(plan)")
                #expect(!plan.contains("Seq Scan") && !plan.contains("Sort  ("), "\(plan)")
            }
        }
    }
}
