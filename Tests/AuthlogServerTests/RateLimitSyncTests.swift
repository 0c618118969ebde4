import AuthlogAccounts
import AuthlogCore
import AuthlogPostgres
import Testing

@testable import AuthlogServer

/// Which way the shared budgets fail: with the database unreachable, each process enforces its own buckets
/// (neither refusing nor admitting everyone) and counts the failed pass.
struct RateLimitSyncTests {
    @Test func anUnreachableDatabaseLeavesEachProcessEnforcingItsOwnBuckets() async throws {
        var perAddress = RateLimitPolicy.defaults.perAddress
        perAddress[.signin] = RateLimit(perSecond: 0.01, burst: 2)
        let policy = RateLimitPolicy(
            enabled: true,
            windowSeconds: 60,
            perAddress: perAddress,
            perFamily: RateLimitDefaults.perFamily,
            perAPIKey: RateLimitDefaults.perAPIKey
        )
        let limiter = RateLimiter(policy: policy, metrics: ServerMetrics(), shared: true)
        let sync = RateLimitSync(limiter: limiter)
        let address = IPAddress("203.0.113.5")
        try limiter.admit(.signin, address: address, requestID: "a")
        // Port 1 on the loopback: nothing listens, the connection is refused at once.
        let pool = ConnectionPool(
            conninfo: "host=127.0.0.1 port=1 dbname=none connect_timeout=2",
            maximumConnections: 1
        )
        await #expect(throws: (any Error).self) { try await sync.pass(pool: pool) }
        #expect(sync.totals.failures == 1)
        try limiter.admit(.signin, address: address, requestID: "b")
        #expect(throws: ServiceError.self, "the burst of 2 is still enforced") {
            try limiter.admit(.signin, address: address, requestID: "c")
        }
        try limiter.admit(.signin, address: IPAddress("203.0.113.6"), requestID: "d")
        #expect(sync.metricLines().contains("authlog_rate_limit_sync_failures_total 1"))
    }

    @Test func chargedAdmissionsRefuseUntilTheBucketRefills() {
        let bucket = ClientRateLimiter(perSecond: 1, burst: 5, shared: true)
        #expect(bucket.acquire("a", now: 0) == nil)
        #expect(bucket.takeAdmitted() == ["a": 1])
        #expect(bucket.takeAdmitted().isEmpty, "taken once")
        bucket.charge("a", 100, now: 0)
        #expect(bucket.acquire("a", now: 0) == 6, "never more than one burst below empty: 6 s to one token")
        #expect(bucket.acquire("a", now: 6) == nil)
        let unshared = ClientRateLimiter(perSecond: 1, burst: 5)
        _ = unshared.acquire("a", now: 0)
        #expect(unshared.takeAdmitted().isEmpty, "a bucket not shared counts nothing for others")
    }
}
