import Foundation
import Synchronization

/// A token bucket per client (an address, a token family, an API key): each may make `burst` requests at once
/// and `perSecond` a second after that. Memory is bounded: at most `maximumClients` clients are tracked; when
/// a new one would pass the cap, the buckets that have refilled (idle clients) are forgotten, and if none has,
/// the least recently seen half. A forgotten client starts again with a full bucket, so the cap bounds memory,
/// not what a client with many addresses can do.
///
/// When `shared`, what each client was admitted is also counted until ``takeAdmitted()`` takes it, and
/// ``charge(_:_:now:)`` takes from a bucket what other processes admitted (``RateLimitSync``).
final class ClientRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Double
        /// Refusals not yet forgiven: one a refusal, forgiven at the bucket's rate, at most
        /// ``ClientRateLimiter/maximumPenaltyBursts`` bursts (``refusalLevel(_:)``).
        var penalty: Double = 0
    }

    /// The most bursts of refusals a client's penalty holds: the level stops at ten doublings, and a client
    /// that stops sending is forgiven within ten bursts' refill time.
    static let maximumPenaltyBursts = 10.0

    private struct State {
        var buckets: [String: Bucket] = [:]
        /// Requests admitted per client since ``takeAdmitted()`` last ran (only when shared).
        var admitted: [String: Int] = [:]
    }

    let perSecond: Double
    let burst: Double
    let maximumClients: Int
    /// Whether admissions are counted for other processes.
    let shared: Bool
    /// The seconds the buckets refill by when a call names no time (the system's uptime, or a test's clock).
    let uptime: Uptime
    private let state = Mutex(State())

    /// A limiter of `perSecond` (> 0) requests a second with bursts of `burst` (≥ 1), refilling by `uptime`.
    init(
        perSecond: Double,
        burst: Int,
        maximumClients: Int = 10_000,
        shared: Bool = false,
        uptime: @escaping Uptime = ClientRateLimiter.systemUptime
    ) {
        self.perSecond = perSecond
        self.burst = Double(burst)
        self.maximumClients = maximumClients
        self.shared = shared
        self.uptime = uptime
    }

    /// A monotonic clock in seconds.
    typealias Uptime = @Sendable () -> Double

    /// The system's uptime, which never goes back.
    static let systemUptime: Uptime = { ProcessInfo.processInfo.systemUptime }

    /// Takes one token for `client` at `now` (the limiter's clock when nil): nil when it may go ahead, else the
    /// whole seconds until it may.
    func acquire(_ client: String, now: Double? = nil) -> Int? {
        let now = now ?? self.uptime()
        return self.state.withLock { state in
            var bucket = self.refilled(client, in: &state, now: now)
            defer { state.buckets[client] = bucket }
            guard bucket.tokens >= 1 else {
                bucket.penalty = min(self.burst * Self.maximumPenaltyBursts, bucket.penalty + 1)
                return max(1, Int(((1 - bucket.tokens) / self.perSecond).rounded(.up)))
            }
            bucket.tokens -= 1
            if self.shared { state.admitted[client, default: 0] += 1 }
            return nil
        }
    }

    /// How many times `client`'s refusals have outrun its bucket: the number of whole bursts of refusals it has
    /// made and that the bucket's rate has not forgiven yet (0 to 10). A client that takes a 429 now and then
    /// stays at 0; one that keeps sending on refusal climbs a level per burst of them.
    func refusalLevel(_ client: String, now: Double? = nil) -> Int {
        let now = now ?? self.uptime()
        return self.state.withLock { state in
            guard let bucket = state.buckets[client] else { return 0 }
            let penalty = max(0, bucket.penalty - (now - bucket.updated) * self.perSecond)
            return Int(penalty / self.burst)
        }
    }

    /// What was admitted per client since the last call, forgotten here.
    func takeAdmitted() -> [String: Int] {
        self.state.withLock { state in
            defer { state.admitted = [:] }
            return state.admitted
        }
    }

    /// Charges `count` requests that other processes admitted for `client` to its bucket, which may go below
    /// empty (never by more than one burst): it then refuses until it has refilled past what the others took.
    func charge(_ client: String, _ count: Int, now: Double? = nil) {
        guard count > 0 else { return }
        let now = now ?? self.uptime()
        self.state.withLock { state in
            var bucket = self.refilled(client, in: &state, now: now)
            bucket.tokens = max(-self.burst, bucket.tokens - Double(count))
            state.buckets[client] = bucket
        }
    }

    /// The number of clients tracked.
    var trackedClients: Int { self.state.withLock { $0.buckets.count } }

    /// `client`'s bucket refilled to `now` (a new one full, after making room).
    private func refilled(_ client: String, in state: inout State, now: Double) -> Bucket {
        if state.buckets[client] == nil, state.buckets.count >= self.maximumClients {
            self.evict(&state.buckets, now: now)
        }
        var bucket = state.buckets[client] ?? Bucket(tokens: self.burst, updated: now)
        let refill = (now - bucket.updated) * self.perSecond
        bucket.tokens = min(self.burst, bucket.tokens + refill)
        bucket.penalty = max(0, bucket.penalty - refill)
        bucket.updated = now
        return bucket
    }

    private func evict(_ buckets: inout [String: Bucket], now: Double) {
        let refill = self.burst / self.perSecond
        buckets = buckets.filter { now - $0.value.updated < refill }
        guard buckets.count >= self.maximumClients else { return }
        let newest = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(self.maximumClients / 2)
        buckets = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
    }
}
