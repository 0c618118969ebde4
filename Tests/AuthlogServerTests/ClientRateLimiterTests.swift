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
}
