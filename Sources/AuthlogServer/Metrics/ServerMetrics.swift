import Foundation
import Synchronization

/// The numbers `/metrics` exposes, in Prometheus text format: requests by route and status, request
/// latency, sign-ins by provider and outcome, events appended by type, public log reads by route, writer batch
/// sizes, and key-set fetch failures.
public final class ServerMetrics: Sendable {
    /// Upper bounds of the latency histogram, in seconds.
    static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
    /// Upper bounds of the batch-size histogram, in events.
    static let batchBuckets: [Double] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 4000]

    private struct State {
        var requests: [RequestKey: Int] = [:]
        var latency = Histogram(bounds: ServerMetrics.latencyBuckets)
        var signins: [SigninKey: Int] = [:]
        var batches = Histogram(bounds: ServerMetrics.batchBuckets)
        var events: [String: Int] = [:]
        var logReads: [String: Int] = [:]
        var refusedConnections: [String: Int] = [:]
        var rateLimited: [RateLimitedKey: Int] = [:]
        var judgements: [JudgementKey: Int] = [:]
    }

    private struct JudgementKey: Hashable {
        let kind: String
        let decision: String
    }

    private struct RateLimitedKey: Hashable {
        let scope: String
        let route: String
    }

    private struct RequestKey: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    private struct SigninKey: Hashable {
        let provider: String
        let outcome: String
    }

    private let state = Mutex(State())
    /// The witnesses' numbers (empty without witnesses).
    public let witnesses = WitnessMetrics()
    /// The push-delivery sinks' numbers (empty without sinks).
    public let sinks = SinkMetrics()

    /// Creates empty metrics.
    public init() {}

    /// Counts one answered request.
    public func recordRequest(method: String, route: String, status: Int, seconds: Double) {
        self.state.withLock {
            $0.requests[RequestKey(method: method, route: route, status: status), default: 0] += 1
            $0.latency.observe(seconds)
        }
    }

    /// Counts one sign-in attempt.
    public func recordSignin(provider: String, outcome: String) {
        self.state.withLock { $0.signins[SigninKey(provider: provider, outcome: outcome), default: 0] += 1 }
    }

    /// Counts one judgement of a sign-in judged unusual, by kind and what was done with the sign-in.
    public func recordSigninJudgement(kind: String, decision: String) {
        self.state.withLock { $0.judgements[JudgementKey(kind: kind, decision: decision), default: 0] += 1 }
    }

    /// Counts events this process appended (not those a retry found stored already), by type.
    public func recordEvents(types: [String]) {
        guard !types.isEmpty else { return }
        self.state.withLock { state in
            for type in types { state.events[type, default: 0] += 1 }
        }
    }

    /// Counts one public log read (the checkpoint, a proof, a tile, an entry bundle) by route; those the rate
    /// limit refused are in `authlog_rate_limited_total{route="log_read"}`.
    public func recordLogRead(route: String) {
        self.state.withLock { $0.logReads[route, default: 0] += 1 }
    }

    /// Counts one connection closed before it was read, by reason (`per_address_cap`).
    public func recordRefusedConnection(reason: String) {
        self.state.withLock { $0.refusedConnections[reason, default: 0] += 1 }
    }

    /// Counts one request refused with 429 by a rate limit of `scope` (`address`, `family`, `api_key`) on the
    /// route group `route`.
    public func recordRateLimited(scope: String, route: String) {
        self.state.withLock { $0.rateLimited[RateLimitedKey(scope: scope, route: route), default: 0] += 1 }
    }

    /// Records the size of one writer batch.
    public func recordBatch(events: Int) {
        self.state.withLock { $0.batches.observe(Double(events)) }
    }

    /// The Prometheus text exposition; `extraLines` are appended (counters gathered at scrape time).
    public func render(extraLines: [String] = []) -> String {
        let state = self.state.withLock { $0 }
        let requests = state.requests.sorted { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }
        let signins = state.signins.sorted { ($0.key.provider, $0.key.outcome) < ($1.key.provider, $1.key.outcome) }
        let events = state.events.sorted { $0.key < $1.key }
        let logReads = state.logReads.sorted { $0.key < $1.key }
        let refusedConnections = state.refusedConnections.sorted { $0.key < $1.key }
        let rateLimited = state.rateLimited.sorted { ($0.key.scope, $0.key.route) < ($1.key.scope, $1.key.route) }
        let judgements = state.judgements.sorted { ($0.key.kind, $0.key.decision) < ($1.key.kind, $1.key.decision) }
        let lines =
            Self.counter(
                "authlog_http_requests_total",
                help: "HTTP requests answered, by route and status.",
                samples: requests.map {
                    ([("method", $0.key.method), ("route", $0.key.route), ("status", String($0.key.status))], $0.value)
                }
            )
            + Self.histogram(
                "authlog_http_request_duration_seconds",
                help: "Time to answer a request.",
                state.latency
            )
            + Self.counter(
                "authlog_signins_total",
                help: "Sign-in attempts, by provider and outcome.",
                samples: signins.map { ([("provider", $0.key.provider), ("outcome", $0.key.outcome)], $0.value) }
            )
            + Self.counter(
                "authlog_signin_judgements_total",
                help: "Sign-ins judged unusual (new_device, new_country, …), by judgement and decision.",
                samples: judgements.map { ([("kind", $0.key.kind), ("decision", $0.key.decision)], $0.value) }
            )
            + Self.counter(
                "authlog_events_appended_total",
                help: "Events this process appended to the log, by type (token.reuse_detected, session.revoked, …).",
                samples: events.map { ([("type", $0.key)], $0.value) }
            )
            + Self.counter(
                "authlog_log_reads_total",
                help:
                    "Public log reads served or refused for a bad request (the checkpoint, proofs, tiles, entry bundles), by route.",
                samples: logReads.map { ([("route", $0.key)], $0.value) }
            )
            + Self.counter(
                "authlog_connections_refused_total",
                help:
                    "Connections closed before they were read, by reason (per_address_cap: the address held its share).",
                samples: refusedConnections.map { ([("reason", $0.key)], $0.value) }
            )
            + Self.counter(
                "authlog_rate_limited_total",
                help:
                    "Requests refused with 429 rate_limited, by what the limit counts (address, family, api_key) and route group.",
                samples: rateLimited.map { ([("scope", $0.key.scope), ("route", $0.key.route)], $0.value) }
            )
            + Self.histogram(
                "authlog_sequencer_batch_events",
                help: "Events per writer batch (group commit).",
                state.batches
            )
        return (lines + self.witnesses.lines() + self.sinks.lines() + extraLines).joined(separator: "\n") + "\n"
    }

    /// The lines of one counter family: HELP, TYPE and one sample per label set (values escaped).
    public static func counter(
        _ name: String,
        help: String,
        samples: [(labels: [(String, String)], value: Int)]
    ) -> [String] {
        ["# HELP \(name) \(help)", "# TYPE \(name) counter"]
            + samples.map { sample in
                let labels = sample.labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",")
                return labels.isEmpty ? "\(name) \(sample.value)" : "\(name){\(labels)} \(sample.value)"
            }
    }

    private static func histogram(_ name: String, help: String, _ histogram: Histogram) -> [String] {
        ["# HELP \(name) \(help)", "# TYPE \(name) histogram"] + histogram.lines(name: name)
    }

    /// A label value with `\`, `"` and newlines escaped.
    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}

/// A cumulative Prometheus histogram.
struct Histogram: Sendable {
    let bounds: [Double]
    private(set) var counts: [Int]
    private(set) var sum = 0.0
    private(set) var count = 0

    init(bounds: [Double]) {
        self.bounds = bounds
        self.counts = Array(repeating: 0, count: bounds.count)
    }

    mutating func observe(_ value: Double) {
        if let index = self.bounds.firstIndex(where: { value <= $0 }) { self.counts[index] += 1 }
        self.sum += value
        self.count += 1
    }

    func lines(name: String) -> [String] {
        var cumulative = 0
        var lines: [String] = []
        for (bound, count) in zip(self.bounds, self.counts) {
            cumulative += count
            lines.append("\(name)_bucket{le=\"\(bound)\"} \(cumulative)")
        }
        lines.append("\(name)_bucket{le=\"+Inf\"} \(self.count)")
        lines.append("\(name)_sum \(self.sum)")
        lines.append("\(name)_count \(self.count)")
        return lines
    }
}
