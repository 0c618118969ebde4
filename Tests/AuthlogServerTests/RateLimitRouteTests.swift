import AuthlogCore
import AuthlogServer
import Foundation
import HTTPTypes
import Testing

/// The per-address limits in front of the account routes, over the in-memory stores: a refused request is
/// 429 with `Retry-After`, reaches no service and writes nothing; the recorder turns the refusals into a
/// window's first event and one summary whose counts add up.
struct RateLimitRouteTests {
    static func policy(signin: RateLimit) -> RateLimitPolicy {
        var perAddress = RateLimitPolicy.defaults.perAddress
        perAddress[.signin] = signin
        var policy = RateLimitPolicy(
            enabled: true,
            windowSeconds: 60,
            perAddress: perAddress,
            perFamily: RateLimitDefaults.perFamily,
            perAPIKey: RateLimitDefaults.perAPIKey
        )
        policy.maximumRefusalDelayMilliseconds = 0
        return policy
    }

    @Test func aRefusedRequestIsHeldForItsLimitsIntervalBeforeIts429() async throws {
        var policy = Self.policy(signin: RateLimit(perSecond: 2, burst: 1))
        policy.maximumRefusalDelayMilliseconds = 1_000
        // The bucket refills by a clock that stands still: however long the first sign-in takes on a loaded
        // machine, the second is refused. The hold itself is real time.
        let routes = try AccountRouter(limits: policy, clock: LimiterClock())
        try await routes.run { client in
            _ = try await client.signIn("first")
            let clock = ContinuousClock()
            let start = clock.now
            let refused = try await client.send(.post, "/v1/signin/dev", body: #"{"subject": "second"}"#)
            let held = clock.now - start
            #expect(refused.status == 429)
            #expect(held >= .milliseconds(490), "held for 1/2 s, not answered at once: \(held)")
        }
        #expect(RateLimiter(policy: policy, metrics: ServerMetrics()).refusalDelay(.signin) == .milliseconds(500))
        policy.maximumRefusalDelayMilliseconds = 50
        #expect(RateLimiter(policy: policy, metrics: ServerMetrics()).refusalDelay(.signin) == .milliseconds(50))
    }

    @Test func theSigninLimitTripsAtItsBurstAndRefusesWithoutAWrite() async throws {
        let routes = try AccountRouter(
            limits: Self.policy(signin: RateLimit(perSecond: 0.01, burst: 3)),
            clock: LimiterClock()
        )
        let limiter = try #require(routes.limiter)
        try await routes.run { client in
            for index in 0..<3 { _ = try await client.signIn("user\(index)") }
            let written = routes.stores.events.events.count
            for _ in 0..<50 {
                let refused = try await client.send(.post, "/v1/signin/dev", body: #"{"subject": "flood"}"#)
                #expect(refused.status == 429)
                #expect(refused.string("error") == "rate_limited")
                #expect(refused.headers[.contentType] == "application/json")
                #expect(refused.headers[.retryAfter].flatMap(Int.init).map { $0 >= 1 } == true)
            }
            #expect(routes.stores.events.events.count == written, "a refused request writes nothing")
            #expect(routes.eventTypes.filter { $0 == "signin.succeeded" }.count == 3, "no refused sign-in ran")
            // Another route group has its own bucket.
            #expect(try await client.send(.post, "/v1/nonces", body: "{}").status != 429)
        }
        try await limiter.recorder.flush(into: routes.stores.events)
        let first = routes.stores.events.events.filter { $0.type == .rateLimitExceeded }
        #expect(first.count == 1, "the first refusal at once")
        try await limiter.recorder.flush(into: routes.stores.events, everything: true)
        let recorded = routes.stores.events.events.filter { $0.type == .rateLimitExceeded }
        #expect(recorded.count == 2, "and one summary of the other 49")
        let payloads = try recorded.map { try $0.payload(as: RateLimitExceeded.self) }
        #expect(payloads.map(\.count).reduce(0, +) == 50)
        #expect(payloads.allSatisfy { $0.route == "signin" && $0.scope == .address && $0.burst == 3 })
        #expect(recorded.allSatisfy { $0.outcome == .failure && $0.reason == "rate_limited" })
        #expect(limiter.recorder.totals.refused == 50)
    }

    @Test func theBucketRefillsAtItsRate() async throws {
        let clock = LimiterClock()
        let routes = try AccountRouter(limits: Self.policy(signin: RateLimit(perSecond: 1, burst: 1)), clock: clock)
        try await routes.run { client in
            _ = try await client.signIn("first")
            let refused = try await client.send(.post, "/v1/signin/dev", body: #"{"subject": "second"}"#)
            #expect(refused.status == 429)
            clock.advance(by: 0.9)
            #expect(try await client.send(.post, "/v1/signin/dev", body: #"{"subject": "early"}"#).status == 429)
            clock.advance(by: 0.2)
            #expect(try await client.send(.post, "/v1/signin/dev", body: #"{"subject": "third"}"#).status == 200)
        }
    }

    @Test func turnedOffNothingIsRefused() async throws {
        let routes = try AccountRouter(limits: .off)
        try await routes.run { client in
            for index in 0..<120 { _ = try await client.signIn("user\(index)") }
        }
    }
}

/// The per-family limit: refreshes of one token family past its burst are refused before anything is decided
/// or written, so a looping app cannot rotate (or replay) its family without bound.
struct FamilyRateLimitTests {
    @Test func refreshesOfOneFamilyPastTheBurstAre429AndWriteNothing() async throws {
        var policy = RateLimitPolicy(
            enabled: true,
            windowSeconds: 60,
            perAddress: RateLimitPolicy.defaults.perAddress,
            perFamily: RateLimit(perSecond: 0.01, burst: 2),
            perAPIKey: RateLimitDefaults.perAPIKey
        )
        policy.maximumRefusalDelayMilliseconds = 0
        let routes = try AccountRouter(limits: policy, clock: LimiterClock())
        try await routes.run { client in
            var token = try #require(try await client.signIn("looping")["refresh_token"]?.stringValue)
            for _ in 0..<2 {
                let answer = try await client.send(.post, "/v1/token/refresh", body: #"{"refresh_token": "\#(token)"}"#)
                #expect(answer.status == 200)
                token = try #require(answer.string("refresh_token"))
            }
            let written = routes.stores.events.events.count
            let refused = try await client.send(.post, "/v1/token/refresh", body: #"{"refresh_token": "\#(token)"}"#)
            #expect(refused.status == 429 && refused.string("error") == "rate_limited")
            #expect(routes.stores.events.events.count == written, "nothing decided, nothing written")
            let other = try #require(try await client.signIn("calm")["refresh_token"]?.stringValue)
            let answer = try await client.send(.post, "/v1/token/refresh", body: #"{"refresh_token": "\#(other)"}"#)
            #expect(answer.status == 200, "another family has its own bucket")
        }
        let limiter = try #require(routes.limiter)
        try await limiter.recorder.flush(into: routes.stores.events)
        let recorded = try routes.stores.events.events.filter { $0.type == .rateLimitExceeded }
            .map { try $0.payload(as: RateLimitExceeded.self) }
        #expect(recorded.count == 1 && recorded.first?.scope == .family && recorded.first?.route == "refresh")
    }

    @Test func underTheDefaultPolicyARefreshLoopIsStoppedAtTheFamilysBurst() async throws {
        // The buckets refill by a clock that stands still, so the loop runs at any speed the machine allows.
        let routes = try AccountRouter(limits: .defaults, clock: LimiterClock())
        try await routes.run { client in
            var token = try #require(try await client.signIn("looping")["refresh_token"]?.stringValue)
            for _ in 0..<RateLimitDefaults.perFamily.burst {
                let answer = try await client.send(.post, "/v1/token/refresh", body: #"{"refresh_token": "\#(token)"}"#)
                #expect(answer.status == 200)
                token = try #require(answer.string("refresh_token"))
            }
            let refused = try await client.send(.post, "/v1/token/refresh", body: #"{"refresh_token": "\#(token)"}"#)
            #expect(refused.status == 429 && refused.string("error") == "rate_limited")
        }
        #expect(routes.eventTypes.filter { $0 == "token.refreshed" }.count == RateLimitDefaults.perFamily.burst)
    }
}

/// Each per-address route group trips at its own burst, whatever the route answers before it trips, and
/// leaves the other groups alone.
struct RouteGroupLimitTests {
    /// A request of each account-side group.
    static let requests: [(LimitedRoute, String, String, String)] = [
        (.signin, "/v1/signin/dev", #"{"subject": "someone"}"#, "application/json"),
        (.refresh, "/v1/token/refresh", #"{"refresh_token": "alr_unknown"}"#, "application/json"),
        (.nonce, "/v1/nonces", "{}", "application/json"),
        (.revoke, "/v1/logout", "{}", "application/json"),
        (.introspect, "/oauth/introspect", "token=x", "application/x-www-form-urlencoded"),
        (.account, "/v1/me/sessions/revoke-others", "{}", "application/json"),
    ]

    /// The account routes' promise under the default configuration: 100 at once from one address, then 429.
    @Test func theAccountRoutesTripAtTheirDefaultBurst() async throws {
        let routes = try AccountRouter(limits: RateLimitPolicy.defaults, clock: LimiterClock())
        let (_, path, body, type) = try #require(Self.requests.first { $0.0 == .account })
        try await routes.run { client in
            for _ in 0..<RateLimitDefaults.account.burst {
                #expect(try await client.send(.post, path, body: body, contentType: type).status != 429)
            }
            let refused = try await client.send(.post, path, body: body, contentType: type)
            #expect(refused.status == 429 && refused.string("error") == "rate_limited")
        }
    }

    @Test(arguments: Self.requests.map(\.0))
    func eachGroupTripsAtItsBurstAndRecoversAtItsRate(group: LimitedRoute) async throws {
        var perAddress = RateLimitPolicy.defaults.perAddress
        perAddress[group] = RateLimit(perSecond: 0.5, burst: 2)
        var policy = RateLimitPolicy(
            enabled: true,
            windowSeconds: 60,
            perAddress: perAddress,
            perFamily: RateLimitDefaults.perFamily,
            perAPIKey: RateLimitDefaults.perAPIKey
        )
        policy.maximumRefusalDelayMilliseconds = 0
        let clock = LimiterClock()
        let routes = try AccountRouter(limits: policy, clock: clock)
        let (_, path, body, type) = try #require(Self.requests.first { $0.0 == group })
        try await routes.run { client in
            for _ in 0..<2 {
                #expect(try await client.send(.post, path, body: body, contentType: type).status != 429, "\(group)")
            }
            let refused = try await client.send(.post, path, body: body, contentType: type)
            #expect(refused.status == 429 && refused.string("error") == "rate_limited", "\(group)")
            for (other, otherPath, otherBody, otherType) in Self.requests where other != group {
                let answer = try await client.send(.post, otherPath, body: otherBody, contentType: otherType)
                #expect(answer.status != 429, "\(other) is not limited by \(group)")
            }
            // One request every 2 s: 1.9 s later none is admitted; 2.1 s later one more is, and only one.
            clock.advance(by: 1.9)
            #expect(try await client.send(.post, path, body: body, contentType: type).status == 429, "\(group)")
            clock.advance(by: 0.2)
            #expect(try await client.send(.post, path, body: body, contentType: type).status != 429, "\(group)")
            #expect(try await client.send(.post, path, body: body, contentType: type).status == 429, "\(group)")
        }
    }
}
