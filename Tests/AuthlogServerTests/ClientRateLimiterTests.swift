import AuthlogCore
import Testing

@testable import AuthlogServer

/// The per-address token bucket of the public log reads, on a clock the test sets.
struct ClientRateLimiterTests {
    @Test func aBurstThenTheRateThenRetryAfterTheWait() {
        let limiter = ClientRateLimiter(perSecond: 2, burst: 3)
        #expect((0..<3).map { _ in limiter.acquire("a", now: 100) } == [nil, nil, nil])
        #expect(limiter.acquire("a", now: 100) == 1, "empty: one token comes in half a second, said as 1 s")
        #expect(limiter.acquire("b", now: 100) == nil, "another address has its own bucket")
        #expect(limiter.acquire("a", now: 100.5) == nil)
        #expect(limiter.acquire("a", now: 100.5) == 1)
        #expect((0..<3).map { _ in limiter.acquire("a", now: 200) } == [nil, nil, nil], "refilled to the burst only")
        #expect(limiter.acquire("a", now: 200) != nil)
        let slow = ClientRateLimiter(perSecond: 0.1, burst: 1)
        #expect(slow.acquire("a", now: 0) == nil)
        #expect(slow.acquire("a", now: 0) == 10)
    }

    @Test func theTrackedAddressesAreCapped() {
        let limiter = ClientRateLimiter(perSecond: 1, burst: 5, maximumClients: 100)
        for index in 0..<1_000 {
            _ = limiter.acquire("10.0.\(index / 256).\(index % 256)", now: Double(index) / 1_000)
            #expect(limiter.trackedClients <= 100)
        }
        // At the cap, the buckets that refilled (idle clients) are forgotten first.
        let busy = ClientRateLimiter(perSecond: 1, burst: 1, maximumClients: 4)
        #expect(busy.acquire("busy", now: 0) == nil)
        for index in 0..<3 { _ = busy.acquire("idle-\(index)", now: 0) }
        #expect(busy.acquire("new", now: 10) == nil, "at the cap, the refilled ones go")
        #expect(busy.trackedClients == 1)
        #expect(busy.acquire("busy", now: 10) == nil, "forgotten after refilling: a full bucket again")
    }

    @Test func refusalsThatOutrunTheBucketClimbALevelPerBurstAndAreForgivenAtItsRate() {
        let limiter = ClientRateLimiter(perSecond: 1, burst: 3)
        #expect((0..<3).map { _ in limiter.acquire("a", now: 0) } == [nil, nil, nil])
        #expect(limiter.refusalLevel("a", now: 0) == 0, "admissions cost no level")
        for _ in 0..<3 { _ = limiter.acquire("a", now: 0) }
        #expect(limiter.refusalLevel("a", now: 0) == 1, "one burst of refusals")
        for _ in 0..<3 { _ = limiter.acquire("a", now: 0) }
        #expect(limiter.refusalLevel("a", now: 0) == 2)
        #expect(limiter.refusalLevel("b", now: 0) == 0, "another client has its own")
        #expect(limiter.refusalLevel("a", now: 3) == 1, "three seconds at 1/s forgive three refusals")
        #expect(limiter.refusalLevel("a", now: 6) == 0)
        for _ in 0..<500 { _ = limiter.acquire("flood", now: 10) }
        #expect(limiter.refusalLevel("flood", now: 10) == 10, "ten levels at most")
        #expect(limiter.refusalLevel("flood", now: 40) == 0, "forgiven within ten bursts' refill once it stops")
    }

    @Test func aClientThatKeepsSendingOnRefusalIsHeldLongerUpToTheMaximum() throws {
        var perAddress = RateLimitPolicy.defaults.perAddress
        perAddress[.signin] = RateLimit(perSecond: 10, burst: 2)
        let clock = LimiterClock()
        let limiter = RateLimiter(
            policy: RateLimitPolicy(
                enabled: true,
                windowSeconds: 60,
                perAddress: perAddress,
                perFamily: RateLimitDefaults.perFamily,
                perAPIKey: RateLimitDefaults.perAPIKey
            ),
            metrics: ServerMetrics(),
            uptime: { clock.now }
        )
        let address = try #require(IPAddress("203.0.113.9"))
        func send() -> Bool { (try? limiter.admit(.signin, address: address, requestID: "r")) != nil }
        #expect(send() && send(), "the burst")
        var holds: [Duration] = []
        for _ in 0..<5 {
            #expect(!send() && !send())
            holds.append(limiter.refusalDelay(.signin, address: address))
        }
        // 100 ms a request at 10/s, doubled for each burst of refusals, at most maximum_refusal_delay_ms.
        #expect(holds == [.milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
        #expect(limiter.refusalDelay(.signin, address: IPAddress("198.51.100.1")) == .milliseconds(100))
        clock.advance(by: 0.5)
        #expect(limiter.refusalDelay(.signin, address: address) == .milliseconds(400), "five refusals forgiven")
        clock.advance(by: 10)
        #expect(limiter.refusalDelay(.signin, address: address) == .milliseconds(100), "all forgiven")
    }
}
