import AuthlogCore
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTransparency
import Foundation

/// Gathers what `authlog report --format html` shows besides the requested report: the three charted
/// reports of the same range, `verify`'s verdict over the whole log, and the latest signed checkpoint.
struct EvidenceCollector {
    let key: CheckpointKeyOptions

    func page(for requested: Report, on connection: Connection) async throws -> EvidencePage {
        func report(_ kind: Report.Kind, by dimensions: [Report.Dimension]) async throws -> Report {
            let query = try ReportQuery(
                kind: kind,
                since: requested.since,
                until: requested.until,
                dimensions: dimensions
            )
            return try await reportingStoreErrors { try await query.run(on: connection) }
        }
        let signins = try await report(.signins, by: [.day, .provider])
        let failures = try await report(.failures, by: [.reason])
        let sessions = try await report(.sessions, by: [.provider])
        let keyring = try self.key.keyring()
        let eventKey = try eventAuthenticator()
        let progress = try await ProgressLine.overLog(label: "verifying the log:", on: connection)
        let outcome = try await reportingStoreErrors {
            try await LogVerifier(keys: keyring, eventKey: eventKey).verify(on: connection, outside: nil) {
                progress.update($0)
            }
        }
        progress.finish()
        let keys = keyring.map { $0.keys.map(NoteKeyring.keyID(of:)).joined(separator: ", ") }
        let checkedWith = outcome.passed ? keys.map { " (signatures checked with the key \($0))" } ?? "" : ""
        let verdict = EvidencePage.Verdict(
            passed: outcome.passed,
            summary: outcome.summary(keyName: keyring?.keys.first?.name) + checkedWith
        )
        let checkpoint = try await reportingStoreErrors { try await CosignedCheckpoint.latest(on: connection) }
        let witnesses = try await reportingStoreErrors { try await CheckpointCosignatures.latest(on: connection) }
        return EvidencePage(
            title: "authlog evidence",
            generatedAt: .now(),
            since: requested.since,
            until: requested.until,
            signinsByDayAndProvider: signins,
            failuresByReason: failures,
            sessionsByProvider: sessions,
            requested: requested,
            verdict: verdict,
            checkpoint: checkpoint.map {
                EvidencePage.Checkpoint(
                    note: $0.note,
                    verifierKey: try? keyring?.open($0.note).verifierKey,
                    treeSize: $0.size
                )
            },
            witnesses: witnesses
        )
    }
}
