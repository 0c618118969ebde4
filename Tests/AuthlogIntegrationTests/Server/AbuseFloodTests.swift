import AuthlogCore
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// One host flooding the routes with no credentials: every request is answered and counted, the log grows by
/// a few events instead of one per request, and a user on another address is served meanwhile.
@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct AbuseFloodTests {
    /// The default bursts, answered at once (a refused request is otherwise held for its limit's interval,
    /// which these thousand sequential requests do not need to show), in windows of an hour: on a loaded
    /// machine a thousand requests may take longer than the default minute, and each new window rightly
    /// writes its own first event and summary. The audit and log-read groups refill at 1/s instead of 20 and
    /// 50: a slow machine's sequential requests (over 40 ms each) would otherwise never empty the bucket.
    static func limited(_ configuration: inout ServerConfiguration) {
        var limits = ServerConfiguration.RateLimitSettings()
        limits.maximumRefusalDelayMs = 0
        limits.windowSeconds = 3_600
        limits.perAddress = try? JSONValue.members([
            "audit": .members(["per_second": .number("1"), "burst": .number(String(RateLimitDefaults.audit.burst))]),
            "log_read": .members([
                "per_second": .number("1"), "burst": .number(String(RateLimitDefaults.logRead.burst)),
            ]),
        ]).decode(ServerConfiguration.RateLimitSettings.PerAddress.self)
        configuration.rateLimits = limits
    }

    /// The limits' clock for the floods: it never moves, so a bucket emptied stays empty however slowly a loaded
    /// machine answers, and the counts below do not depend on the machine's speed.
    static let stopped: @Sendable () -> Double = { 1000 }

    /// The events the flood wrote, and the requests they account for.
    static func recorded(_ server: ServerHarness) async throws -> (events: Int64, requests: Int64) {
        let filter = "type IN ('audit.accessed', 'ratelimit.exceeded') AND ip = '203.0.113.66'"
        let events = try await server.count(SQLQuery(unsafeSQL: "SELECT count(*) FROM authlog.events WHERE \(filter)"))
        let requests = try await server.count(
            SQLQuery(
                unsafeSQL:
                    "SELECT coalesce(sum(coalesce((data->>'count')::int, 1)), 0) FROM authlog.events WHERE \(filter)"
            )
        )
        return (events, requests)
    }

    @Test func keylessExportRequestsWriteAFewEventsThatCountThemAll() async throws {
        try await ServerHarness.run(adjust: Self.limited, rateLimitUptime: Self.stopped) { server in
            let flood = [("X-Forwarded-For", "203.0.113.66")]
            var statuses: [Int: Int] = [:]
            for _ in 0..<1_000 {
                statuses[try await server.client.send("GET", "/v1/events", headers: flood).status, default: 0] += 1
            }
            #expect(statuses.keys.sorted() == [401, 429], "\(statuses)")
            #expect(statuses[401] ?? 0 >= RateLimitDefaults.audit.burst, "the burst is answered 401")
            let user = try await server.post(
                "/v1/signin/dev",
                .members(["subject": .string("bystander")]),
                headers: [("X-Forwarded-For", "198.51.100.4")]
            )
            #expect(user.status == 200, "another address is served")
            let before = try await Self.recorded(server)
            #expect(before.events == 0, "nothing was written on the requests' path")
            try await server.flushRefusals()
            let after = try await Self.recorded(server)
            #expect(after.requests == 1_000, "every request is accounted for")
            #expect(after.events <= 4, "a first and a summary for the refusals and for the rate limit: \(after.events)")
            let metrics = String(decoding: try await server.client.send("GET", "/metrics").body, as: UTF8.self)
            #expect(
                metrics.contains(
                    "authlog_rate_limited_total{scope=\"address\",route=\"audit\"} \(statuses[429] ?? 0)\n"
                )
            )
        }
    }

    @Test func anonymousProofReadsAreOneEventPerAddressAndWindow() async throws {
        try await ServerHarness.run(adjust: Self.limited, rateLimitUptime: Self.stopped) { server in
            try await server.database.seedSealedEvents(10)
            let flood = [("X-Forwarded-For", "203.0.113.66")]
            var answered = 0
            for _ in 0..<400 {
                let answer = try await server.client.send("GET", "/v1/log/proof/inclusion?position=1", headers: flood)
                #expect(answer.status == 200 || answer.status == 429)
                if answer.status == 200 { answered += 1 }
            }
            try await server.flushRefusals()
            let reads = try await server.count(
                """
                SELECT coalesce(sum((data->>'count')::int), 0) FROM authlog.events
                WHERE type = 'audit.accessed' AND ip = '203.0.113.66' AND data->>'actor' = 'anonymous'
                """
            )
            #expect(reads == Int64(answered), "every read answered is counted")
            let limited = try await server.count(
                """
                SELECT coalesce(sum((data->>'count')::int), 0) FROM authlog.events
                WHERE type = 'ratelimit.exceeded' AND ip = '203.0.113.66'
                """
            )
            #expect(limited == Int64(400 - answered))
            #expect(try await Self.recorded(server).events <= 4)
        }
    }

    @Test func oneAPIKeyIsLimitedWhateverItsAddressesAndItsReadsStayRecordedEach() async throws {
        let perKey: (inout ServerConfiguration) -> Void = { configuration in
            var limits = ServerConfiguration.RateLimitSettings()
            limits.maximumRefusalDelayMs = 0
            limits.perAPIKey = .init(perSecond: 0.01, burst: 3)
            configuration.rateLimits = limits
        }
        try await ServerHarness.run(adjust: perKey) { server in
            let key = try await APIKeyStore(pool: server.components.store.pool).create(name: "busy-siem", scope: .audit)
            var statuses: [Int] = []
            for index in 0..<5 {
                let answer = try await server.client.send(
                    "GET",
                    "/v1/events?limit=1",
                    headers: [("Authorization", "Bearer \(key)"), ("X-Forwarded-For", "198.51.100.\(index + 1)")]
                )
                statuses.append(answer.status)
                if answer.status == 429 { #expect(answer.string("error") == "rate_limited") }
            }
            #expect(statuses == [200, 200, 200, 429, 429], "one bucket for the key across five addresses")
            let reads = try await server.count(
                "SELECT count(*) FROM authlog.events WHERE type = 'audit.accessed' AND data->>'actor' = 'key:busy-siem'"
            )
            #expect(reads == 3, "each read made with a valid key is recorded by itself; the refused ones are not reads")
            try await server.flushRefusals()
            let limited = try await server.count(
                """
                SELECT coalesce(sum((data->>'count')::int), 0) FROM authlog.events
                WHERE type = 'ratelimit.exceeded' AND data->>'scope' = 'api_key' AND data->>'key' = 'busy-siem'
                """
            )
            #expect(limited == 2)
        }
    }
}
