import AuthlogCore
import AuthlogStore

/// The Prometheus lines and the `/readyz` member of this process's ``LogIntegrityStatus``: what its checkpoint
/// signer refused and which queued rows its sealer refused for their MAC.
enum LogIntegrityMetrics {
    /// The metric families, gathered at scrape time.
    static func lines(_ status: LogIntegrityStatus) -> [String] {
        let snapshot = status.snapshot
        return [
            "# HELP authlog_checkpoint_signer_refusing 1 while the signer refuses to sign the head (it contradicts the last checkpoint signed).",
            "# TYPE authlog_checkpoint_signer_refusing gauge",
            "authlog_checkpoint_signer_refusing \(snapshot.refusal == nil ? 0 : 1)",
            "# HELP authlog_checkpoint_last_signed_size The size of the last checkpoint this process signed or found signed.",
            "# TYPE authlog_checkpoint_last_signed_size gauge",
            "authlog_checkpoint_last_signed_size \(snapshot.lastSignedSize)",
            "# HELP authlog_checkpoint_signing_failures Attempts in a row to sign a due checkpoint that failed for a reason of the signer's own (its files, its key).",
            "# TYPE authlog_checkpoint_signing_failures gauge",
            "authlog_checkpoint_signing_failures \(snapshot.signingFailures)",
            "# HELP authlog_log_unsealed_events Events committed and queued for sealing at the last look (once a second; an upper bound; -1 when the look failed).",
            "# TYPE authlog_log_unsealed_events gauge",
            "authlog_log_unsealed_events \(snapshot.unsealedEvents)",
            "# HELP authlog_log_oldest_unsealed_seconds How long the entry at the head of the sealer's queue had stayed there at the last look, as this process saw it (0: none waiting; -1 when the look failed).",
            "# TYPE authlog_log_oldest_unsealed_seconds gauge",
            "authlog_log_oldest_unsealed_seconds \(snapshot.oldestUnsealedWaitSeconds)",
        ]
            + ServerMetrics.counter(
                "authlog_checkpoint_refusals_total",
                help: "Heads the checkpoint signer refused to sign, by reason.",
                samples: AuditCheckpointRefused.Reason.allCases.map {
                    ([("reason", $0.rawValue)], snapshot.refusals[$0] ?? 0)
                }
            )
            + [
                "# HELP authlog_events_refused_total Queued rows the sealer refused: their MAC under the event key was missing or wrong.",
                "# TYPE authlog_events_refused_total counter",
                "authlog_events_refused_total \(snapshot.refusedEvents)",
            ]
    }

    /// `/readyz`'s `log` member: `ok`, or `refusing` with the reason and what was found; the refused rows.
    static func readiness(_ status: LogIntegrityStatus) -> JSONValue {
        let snapshot = status.snapshot
        var signer: [(String, JSONValue)] = [("state", .string(snapshot.refusal == nil ? "ok" : "refusing"))]
        if let refusal = snapshot.refusal {
            signer += [
                ("reason", .string(refusal.reason.rawValue)),
                ("detail", .string(refusal.detail)),
                ("last_signed_size", .number(String(refusal.lastSigned.size))),
            ]
        }
        return .object([
            ("checkpoint_signer", .object(signer)),
            ("refused_events", .number(String(snapshot.refusedEvents))),
        ])
    }
}
