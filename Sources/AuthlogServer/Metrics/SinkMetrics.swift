public import AuthlogStore
import Foundation
import Synchronization

/// The push-delivery side of `/metrics`: per sink, the events and batches this process delivered and its failed
/// attempts; and, as the database has them whichever process delivers (``record(states:head:)``, every second),
/// the failures in a row, the last position acknowledged, how far behind the log's head it is, and whether this
/// process holds the lease.
public final class SinkMetrics: Sendable {
    private struct Sink {
        var events = 0
        var batches = 0
        var failures = 0
        var consecutiveFailures = 0
        var deliveredThrough: Int64 = 0
        var head: Int64 = 0
        var isLeasedHere = false
    }

    private let state = Mutex([String: Sink]())

    /// Empty metrics (no sink configured).
    public init() {}

    /// Declares a configured sink, so that it shows before its first delivery.
    public func declare(_ name: String) {
        self.state.withLock { if $0[name] == nil { $0[name] = Sink() } }
    }

    /// `name` acknowledged a batch of `events` ending at `position`; the log's head was `head`.
    public func recordDelivered(_ name: String, events: Int, through position: Int64, head: Int64) {
        self.state.withLock { state in
            state[name, default: Sink()].events += events
            state[name, default: Sink()].batches += 1
            state[name, default: Sink()].consecutiveFailures = 0
        }
        self.recordPosition(name, through: position, head: head)
    }

    /// `name` is caught up or waiting: its cursor is at `position` and the head at `head`.
    public func recordPosition(_ name: String, through position: Int64, head: Int64) {
        self.state.withLock { state in
            var sink = state[name] ?? Sink()
            sink.deliveredThrough = max(sink.deliveredThrough, position)
            sink.head = max(sink.head, head)
            state[name] = sink
        }
    }

    /// The sinks' rows as the database has them, and the log's head: the truth about every declared sink, also
    /// while another process delivers to it or its receiver is down. A sink with no row yet has acknowledged
    /// nothing.
    public func record(states: [String: SinkState], head: Int64) {
        self.state.withLock { state in
            for name in state.keys {
                let row = states[name] ?? SinkState(deliveredThrough: 0, consecutiveFailures: 0, isLeasedHere: false)
                state[name]?.deliveredThrough = row.deliveredThrough
                state[name]?.consecutiveFailures = row.consecutiveFailures
                state[name]?.isLeasedHere = row.isLeasedHere
                state[name]?.head = head
            }
        }
    }

    /// A delivery to `name` failed (unreachable, timed out, or answered other than 2xx).
    public func recordFailure(_ name: String) {
        self.state.withLock { state in
            state[name, default: Sink()].failures += 1
            state[name, default: Sink()].consecutiveFailures += 1
        }
    }

    /// The Prometheus lines: every family's HELP and TYPE, with a sample per configured sink.
    public func lines() -> [String] {
        let sinks = self.state.withLock { $0 }.sorted { $0.key < $1.key }
        func gauge(_ name: String, _ help: String, _ value: (Sink) -> Int64) -> [String] {
            ["# HELP \(name) \(help)", "# TYPE \(name) gauge"]
                + sinks.map { "\(name){sink=\"\(ServerMetrics.escape($0.key))\"} \(value($0.value))" }
        }
        return ServerMetrics.counter(
            "authlog_sink_events_delivered_total",
            help: "Events a sink acknowledged (a batch delivered again after a crash counts again).",
            samples: sinks.map { ([("sink", $0.key)], $0.value.events) }
        )
            + ServerMetrics.counter(
                "authlog_sink_batches_delivered_total",
                help: "Batches a sink acknowledged with 2xx.",
                samples: sinks.map { ([("sink", $0.key)], $0.value.batches) }
            )
            + ServerMetrics.counter(
                "authlog_sink_delivery_failures_total",
                help: "Deliveries to a sink that failed: unreachable, timed out, or answered other than 2xx.",
                samples: sinks.map { ([("sink", $0.key)], $0.value.failures) }
            )
            + gauge(
                "authlog_sink_consecutive_failures",
                "Failed deliveries to a sink since its last success, by whichever process delivers to it."
            ) { Int64($0.consecutiveFailures) }
            + gauge("authlog_sink_delivered_position", "The last log position a sink acknowledged.") {
                $0.deliveredThrough
            }
            + gauge("authlog_sink_lag_events", "Sealed events not yet acknowledged by a sink.") {
                max(0, $0.head - $0.deliveredThrough)
            }
            + gauge("authlog_sink_lease_held", "1 when this process holds the sink's lease (it delivers).") {
                $0.isLeasedHere ? 1 : 0
            }
    }
}
