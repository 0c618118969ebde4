public import AuthlogCore
import Foundation
import Synchronization

/// The witnesses' side of `/metrics`: per witness the latest tree size it cosigned, that cosignature's age,
/// failed submissions and whether it raised an alarm (a fork or a rollback); for the log, the latest
/// witnessed size (cosigned by the quorum) and its age.
public final class WitnessMetrics: Sendable {
    private struct Witness {
        var cosignedSize: Int64 = 0
        var cosignedAt: Int64?
        var failures = 0
        var alarm = false
    }

    private struct State {
        var witnesses: [String: Witness] = [:]
        var witnessedSize: Int64?
        var witnessedAt: Int64?
        var checkpointSize: Int64?
    }

    private let state = Mutex(State())

    /// Empty metrics (no witness configured).
    public init() {}

    /// Declares a configured witness, so that it shows before its first answer; the log's witnessed age counts
    /// from the first declaration until a checkpoint is witnessed.
    public func declare(_ name: String, now: Int64? = nil) {
        self.state.withLock { state in
            if state.witnesses[name] == nil { state.witnesses[name] = Witness() }
            if state.witnessedAt == nil { state.witnessedAt = now ?? Int64(Date().timeIntervalSince1970) }
        }
    }

    /// `name` cosigned the checkpoint of `size` at `time` (POSIX seconds).
    public func recordCosigned(_ name: String, size: Int64, at time: Int64) {
        self.state.withLock { state in
            var witness = state.witnesses[name] ?? Witness()
            if size >= witness.cosignedSize {
                witness.cosignedSize = size
                witness.cosignedAt = time
            }
            state.witnesses[name] = witness
        }
    }

    /// A submission to `name` failed (unreachable, refused, or a cosignature that did not verify).
    public func recordFailure(_ name: String) {
        self.state.withLock { $0.witnesses[name, default: Witness()].failures += 1 }
    }

    /// `name`'s answers showed a fork or rollback, or such an alarm stands in the log: submissions to it stopped.
    public func recordAlarm(_ name: String) {
        self.state.withLock { $0.witnesses[name, default: Witness()].alarm = true }
    }

    /// An operator cleared `name`'s alarm: submissions to it resume.
    public func clearAlarm(_ name: String) {
        self.state.withLock { $0.witnesses[name, default: Witness()].alarm = false }
    }

    /// The latest checkpoint the submitter read has `size` leaves.
    public func recordCheckpoint(size: Int64) {
        self.state.withLock { $0.checkpointSize = max($0.checkpointSize ?? 0, size) }
    }

    /// The checkpoint of `size` is witnessed (the quorum cosigned it); `time` is when the quorum was reached (at
    /// start, read from the stored cosignatures).
    public func recordWitnessed(size: Int64, at time: Int64) {
        self.state.withLock { state in
            guard size > (state.witnessedSize ?? 0) else { return }
            state.witnessedSize = size
            state.witnessedAt = time
        }
    }

    /// What `/readyz` says of the witnesses: the latest witnessed size, its age and the witnesses in alarm; nil
    /// without witnesses. Informational: the server stays ready whatever the witnesses do.
    public func readiness(now: Int64? = nil) -> JSONValue? {
        let now = now ?? Int64(Date().timeIntervalSince1970)
        let state = self.state.withLock { $0 }
        guard !state.witnesses.isEmpty else { return nil }
        let alarms = state.witnesses.filter(\.value.alarm).keys.sorted()
        var members: [(String, JSONValue)] = [("witnessed_tree_size", .number(String(state.witnessedSize ?? 0)))]
        if let at = state.witnessedAt { members.append(("witnessed_age_seconds", .number(String(max(0, now - at))))) }
        members.append(("alarms", .array(alarms.map(JSONValue.string))))
        return .object(members)
    }

    /// The Prometheus lines: every family's HELP and TYPE, with samples only when witnesses are configured.
    public func lines(now: Int64? = nil) -> [String] {
        let now = now ?? Int64(Date().timeIntervalSince1970)
        let state = self.state.withLock { $0 }
        let witnesses = state.witnesses.sorted { $0.key < $1.key }
        let configured = !witnesses.isEmpty
        func family(_ name: String, _ type: String, _ help: String) -> [String] {
            ["# HELP \(name) \(help)", "# TYPE \(name) \(type)"]
        }
        func label(_ name: String) -> String { "{witness=\"\(ServerMetrics.escape(name))\"}" }
        var lines = family(
            "authlog_witness_cosigned_tree_size",
            "gauge",
            "The size of the latest checkpoint each witness cosigned."
        )
        lines += witnesses.map { "authlog_witness_cosigned_tree_size\(label($0.key)) \($0.value.cosignedSize)" }
        lines += family(
            "authlog_witness_cosignature_age_seconds",
            "gauge",
            "Seconds since each witness's latest cosignature (absent before the first)."
        )
        lines += witnesses.compactMap { entry in
            entry.value.cosignedAt.map {
                "authlog_witness_cosignature_age_seconds\(label(entry.key)) \(max(0, now - $0))"
            }
        }
        lines += ServerMetrics.counter(
            "authlog_witness_failures_total",
            help: "Submissions to a witness that failed: unreachable, refused, or a cosignature that did not verify.",
            samples: witnesses.map { ([("witness", $0.key)], $0.value.failures) }
        )
        lines += family(
            "authlog_witness_alarm",
            "gauge",
            "1 while a witness's alarm stands (its answer showed a fork or a rollback): submissions to it stopped until an operator clears it."
        )
        lines += witnesses.map { "authlog_witness_alarm\(label($0.key)) \($0.value.alarm ? 1 : 0)" }
        lines += family(
            "authlog_log_checkpoint_tree_size",
            "gauge",
            "The size of the latest checkpoint submitted to the witnesses."
        )
        if configured { lines.append("authlog_log_checkpoint_tree_size \(state.checkpointSize ?? 0)") }
        lines += family(
            "authlog_log_witnessed_tree_size",
            "gauge",
            "The size of the latest checkpoint cosigned by the witness quorum."
        )
        if configured { lines.append("authlog_log_witnessed_tree_size \(state.witnessedSize ?? 0)") }
        lines += family(
            "authlog_log_witnessed_age_seconds",
            "gauge",
            "Seconds since a checkpoint last reached the witness quorum (since start before the first)."
        )
        if configured, let at = state.witnessedAt {
            lines.append("authlog_log_witnessed_age_seconds \(max(0, now - at))")
        }
        return lines
    }
}
