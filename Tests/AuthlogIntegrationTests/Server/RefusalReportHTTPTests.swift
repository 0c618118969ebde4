import AuthlogCore
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// A keyless flood of an audit route, end to end: a few events, and `GET /v1/reports/failures` still counts
/// every refused request, by what refused it.
@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct RefusalReportHTTPTests {
    @Test func theFailuresReportCountsEveryRequestOfAKeylessFlood() async throws {
        try await ServerHarness.run(adjust: AbuseFloodTests.limited) { server in
            let flood = [("X-Forwarded-For", RefusalFixtures.address)]
            var statuses: [Int: Int64] = [:]
            for _ in 0..<600 {
                statuses[try await server.client.send("GET", "/v1/events", headers: flood).status, default: 0] += 1
            }
            #expect(statuses.keys.sorted() == [401, 429], "\(statuses)")
            try await server.flushRefusals()
            let events = try await server.count(
                """
                SELECT count(*) FROM authlog.events WHERE type IN ('audit.accessed', 'ratelimit.exceeded')
                """
            )
            #expect(events <= 4, "a few events for 600 requests: \(events)")

            let key = try await APIKeyStore(pool: server.components.store.pool).create(name: "auditor", scope: .audit)
            let answer = try await server.client.send(
                "GET",
                "/v1/reports/failures",
                headers: ServerHarness.appHeaders + [("Authorization", "Bearer \(key)")]
            )
            #expect(answer.status == 200, "\(answer.json.canonicalText)")
            var byReason: [String: Int64] = [:]
            for row in answer.json["rows"]?.arrayValue ?? [] {
                byReason[row["reason"]?.stringValue ?? ""] = row["failed"]?.integerValue
            }
            #expect(byReason["rate_limited:audit"] == statuses[429], "\(answer.json.canonicalText)")
            #expect(byReason["audit_refused:missing_api_key"] == statuses[401])
            #expect(answer.json["total"]?["failed"]?.integerValue == 600)
        }
    }
}
