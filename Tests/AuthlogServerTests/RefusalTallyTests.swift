import AuthlogCore
import Testing

@testable import AuthlogServer

/// A flood is recorded as a window's first refusal plus one summary, and the counts add up to every refusal.
struct RefusalTallyTests {
    static func at(_ seconds: Int64) -> Timestamp {
        Timestamp(microsecondsSinceEpoch: 1_800_000_000_000_000 + seconds * 1_000_000)
    }

    @Test func aFloodIsTheFirstRefusalAndOneSummaryPerWindow() {
        var tally = RefusalTally<String, String>(windowSeconds: 60, overflowKey: "*")
        for second in 0..<10_000 { tally.note("203.0.113.9", kind: "rate_limited", at: Self.at(Int64(second / 200))) }
        let first = tally.take(at: Self.at(59))
        #expect(first.count == 1, "only the first is recorded while the window is open")
        #expect(first.first?.isFirst == true && first.first?.count == 1)
        #expect(tally.take(at: Self.at(59)).isEmpty, "taken once")
        let closed = tally.take(at: Self.at(60))
        #expect(closed.count == 1)
        #expect(closed.first?.count == 9_999 && closed.first?.isFirst == false)
        #expect(closed.first?.firstAt == Self.at(0) && closed.first?.lastAt == Self.at(49))
        #expect(tally.openKeys == 0)
    }

    @Test func aRefusalAfterTheWindowOpensANewOneAndClosesTheOld() {
        var tally = RefusalTally<String, String>(windowSeconds: 10, overflowKey: "*")
        tally.note("a", kind: "malformed", at: Self.at(0))
        tally.note("a", kind: "too_large", at: Self.at(3))
        tally.note("a", kind: "malformed", at: Self.at(4))
        tally.note("a", kind: "malformed", at: Self.at(12))
        let taken = tally.take(at: Self.at(12))
        #expect(taken.map(\.count) == [1, 2, 1])
        #expect(taken[1].counts == ["too_large": 1, "malformed": 1])
        #expect(taken[2].isFirst, "the refusal at 12 s opened a window of its own")
    }

    @Test func aLoneRefusalWritesOneEventOnly() {
        var tally = RefusalTally<String, String>(windowSeconds: 10, overflowKey: "*")
        tally.note("a", kind: "rate_limited", at: Self.at(0))
        #expect(tally.take(at: Self.at(0)).count == 1)
        #expect(tally.take(at: Self.at(100)).isEmpty, "nothing after the first: no summary")
    }

    @Test func pastTheKeyCapNewKeysShareOneOverflowWindow() {
        var tally = RefusalTally<String, String>(windowSeconds: 60, maximumKeys: 100, overflowKey: "*")
        for index in 0..<10_000 { tally.note("10.0.\(index / 256).\(index % 256)", kind: "x", at: Self.at(1)) }
        #expect(tally.openKeys == 101, "100 keys and the overflow")
        let firsts = tally.take(at: Self.at(2))
        #expect(firsts.count == 101)
        let summaries = tally.take(at: Self.at(61))
        #expect(summaries.count == 1 && summaries.first?.key == "*")
        let counted: Int = (firsts + summaries).map(\.count).reduce(0, +)
        #expect(counted == 10_000)
    }

    @Test func shutdownTakesEveryOpenWindow() {
        var tally = RefusalTally<String, String>(windowSeconds: 60, overflowKey: "*")
        for _ in 0..<5 { tally.note("a", kind: "x", at: Self.at(0)) }
        _ = tally.take(at: Self.at(0))
        #expect(tally.take(at: Self.at(1), everything: true).map(\.count) == [4])
    }
}

/// Which routes share which per-address limit, and how an address is counted.
struct LimitedRouteTests {
    @Test func everyLimitedRouteOfTheServerHasItsGroup() {
        let expected: [(String, String, LimitedRoute?)] = [
            ("POST", "/v1/signin/{provider}", .signin), ("POST", "/v1/providers/apple/notifications", .signin),
            ("GET", "/v1/providers/kakao/unlink", .signin), ("POST", "/v1/token/refresh", .refresh),
            ("POST", "/v1/nonces", .nonce), ("POST", "/oauth/revoke", .revoke), ("POST", "/v1/logout", .revoke),
            ("POST", "/oauth/introspect", .introspect), ("GET", "/checkpoint", .logRead),
            ("GET", "/tile/{tile_path}", .logRead), ("GET", "/v1/log/proof/inclusion", .logRead),
            ("GET", "/v1/log/receipt/{event_id}", .logRead), ("GET", "/v1/log/receipts", .logRead),
            ("GET", "/v1/events", .audit),
            ("POST", "/v1/events", .audit), ("GET", "/v1/users/{id}/sessions", .audit),
            ("POST", "/v1/sessions/{id}/revoke", .audit), ("GET", "/v1/reports/{kind}", .audit),
            ("GET", "/v1/me/sessions", .account), ("POST", "/v1/me/activity/{event_id}/not-me", .account),
            ("DELETE", "/v1/me", .account), ("POST", "/v1/me/credential-state", .account),
            ("GET", "/healthz", nil), ("GET", "/metrics", nil), ("GET", "/v1/metrics", nil),
            ("GET", "/.well-known/jwks.json", nil),
        ]
        for (method, path, group) in expected {
            #expect(LimitedRoute.of(method: method, path: path) == group, "\(method) \(path)")
        }
    }

    @Test func anIPv6HostIsCountedByItsSlash64AndAMappedIPv4AsIPv4() throws {
        let one = try #require(IPAddress("2001:db8:1:2:aaaa::1"))
        let two = try #require(IPAddress("2001:db8:1:2:bbbb::2"))
        let other = try #require(IPAddress("2001:db8:1:3::1"))
        #expect(one.limitKey == "2001:db8:1:2::/64")
        #expect(one.limitKey == two.limitKey)
        #expect(one.limitKey != other.limitKey)
        #expect(try #require(IPAddress("::ffff:192.0.2.7")).limitKey == "192.0.2.7")
        #expect(try #require(IPAddress("192.0.2.7")).limitKey == "192.0.2.7")
    }

    @Test func outOfRangeRatesAreRefusedByName() throws {
        var settings = ServerConfiguration.RateLimitSettings()
        settings.perFamily = .init(perSecond: 0, burst: 5)
        #expect(throws: ServerConfiguration.Invalid.self) { try RateLimitPolicy(settings: settings) }
        settings.perFamily = .init(perSecond: 1, burst: 0)
        do {
            _ = try RateLimitPolicy(settings: settings)
            Issue.record("a burst of 0 was accepted")
        } catch let error as ServerConfiguration.Invalid {
            #expect(error.description == "rate_limits.per_family.burst must be 1 to 1000000")
        }
        settings.perFamily = nil
        settings.windowSeconds = 0
        #expect(throws: ServerConfiguration.Invalid.self) { try RateLimitPolicy(settings: settings) }
        var moved = ServerConfiguration()
        moved.log = ServerConfiguration.LogSettings()
        moved.log?.readsPerSecond = 5
        do {
            _ = try RateLimitPolicy(configuration: moved)
            Issue.record("log.reads_per_second was accepted")
        } catch let error as ServerConfiguration.Invalid {
            #expect(error.description.hasPrefix("log.reads_per_second and log.read_burst moved to rate_limits"))
        }
    }
}
