import Foundation
import Synchronization

/// A token bucket per client address, for the public log reads (proofs and tiles): each address may make
/// `burst` requests at once and `perSecond` a second after that. Memory is bounded: at most `maximumClients`
/// addresses are tracked; when a new one would pass the cap, the buckets that have refilled (idle clients) are
/// forgotten, and if none has, the least recently seen half. A forgotten client starts again with a full
/// bucket, so the cap bounds memory, not what a client with many addresses can read.
final class ClientRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let perSecond: Double
    let burst: Double
    let maximumClients: Int
    private let buckets = Mutex([String: Bucket]())

    /// A limiter of `perSecond` (> 0) requests a second with bursts of `burst` (≥ 1).
    init(perSecond: Double, burst: Int, maximumClients: Int = 10_000) {
        self.perSecond = perSecond
        self.burst = Double(burst)
        self.maximumClients = maximumClients
    }

    /// Takes one token for `client`: nil when it may go ahead, else the whole seconds until it may.
    func acquire(_ client: String, now: Double = ProcessInfo.processInfo.systemUptime) -> Int? {
        self.buckets.withLock { buckets in
            if buckets[client] == nil, buckets.count >= self.maximumClients {
                self.evict(&buckets, now: now)
            }
            var bucket = buckets[client] ?? Bucket(tokens: self.burst, updated: now)
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.perSecond)
            bucket.updated = now
            defer { buckets[client] = bucket }
            guard bucket.tokens >= 1 else {
                return max(1, Int(((1 - bucket.tokens) / self.perSecond).rounded(.up)))
            }
            bucket.tokens -= 1
            return nil
        }
    }

    /// The number of addresses tracked.
    var trackedClients: Int { self.buckets.withLock { $0.count } }

    private func evict(_ buckets: inout [String: Bucket], now: Double) {
        let refill = self.burst / self.perSecond
        buckets = buckets.filter { now - $0.value.updated < refill }
        guard buckets.count >= self.maximumClients else { return }
        let newest = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(self.maximumClients / 2)
        buckets = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
    }
}
