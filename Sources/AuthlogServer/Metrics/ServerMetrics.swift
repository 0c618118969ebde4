import Foundation
import Synchronization

/// The numbers `/metrics` exposes, in Prometheus text format: requests by route and status, request
/// latency, sign-ins by provider and outcome, sequencer batch sizes, and key-set fetch failures.
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

    /// Records the size of one sequencer batch.
    public func recordBatch(events: Int) {
        self.state.withLock { $0.batches.observe(Double(events)) }
    }

    /// The Prometheus text exposition; `extraLines` are appended (gauges gathered at scrape time).
    public func render(extraLines: [String] = []) -> String {
        let state = self.state.withLock { $0 }
        var lines: [String] = []
        lines.append("# HELP authlog_http_requests_total HTTP requests answered, by route and status.")
        lines.append("# TYPE authlog_http_requests_total counter")
        for (key, count) in state.requests.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }) {
            lines.append(
                "authlog_http_requests_total{method=\"\(key.method)\",route=\"\(Self.escape(key.route))\",status=\"\(key.status)\"} \(count)")
        }
        lines.append("# HELP authlog_http_request_duration_seconds Time to answer a request.")
        lines.append("# TYPE authlog_http_request_duration_seconds histogram")
        lines += state.latency.lines(name: "authlog_http_request_duration_seconds")
        lines.append("# HELP authlog_signins_total Sign-in attempts, by provider and outcome.")
        lines.append("# TYPE authlog_signins_total counter")
        for (key, count) in state.signins.sorted(by: { ($0.key.provider, $0.key.outcome) < ($1.key.provider, $1.key.outcome) }) {
            lines.append(
                "authlog_signins_total{provider=\"\(Self.escape(key.provider))\",outcome=\"\(key.outcome)\"} \(count)")
        }
        lines.append("# HELP authlog_sequencer_batch_events Events per sequencer batch.")
        lines.append("# TYPE authlog_sequencer_batch_events histogram")
        lines += state.batches.lines(name: "authlog_sequencer_batch_events")
        return (lines + extraLines).joined(separator: "\n") + "\n"
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
