import AuthlogCore
import AuthlogStore
import Logging

extension WitnessSubmitter {
    /// Puts `name`'s run of failures on the record: `audit.witness_failing` when it reaches
    /// ``AuditWitnessFailing/threshold``, `audit.witness_recovered` once a recorded run ends with a cosignature
    /// (an unrecorded one is simply dropped). Each event's id is made from the witness and the run's start, so one
    /// recorded twice is stored once; one the database does not take now is tried again after the next submission.
    func recordEpisode(of name: String) async {
        guard let peer = self.peers[name], let run = peer.failing else { return }
        let stream = StreamName(category: "audit", id: "witnesses")
        do {
            if peer.consecutiveFailures == 0 {
                guard run.recorded else { return }
                let event = try EventEnvelope(
                    AuditWitnessRecovered(
                        witness: name,
                        failingSince: run.since.description,
                        recoveredAt: Timestamp.now().description,
                        failures: run.failures,
                        cosignedSize: peer.cosignedSize
                    ),
                    eventID: run.eventID("witness_recovered", of: name),
                    stream: stream,
                    outcome: .success
                )
                _ = try await self.store.append(AppendCommand(event))
                self.peers[name]?.failing = nil
                return
            }
            guard !run.recorded, run.failures >= AuditWitnessFailing.threshold else { return }
            let event = try EventEnvelope(
                AuditWitnessFailing(
                    witness: name,
                    failingSince: run.since.description,
                    failures: run.failures,
                    lastError: run.lastError,
                    cosignedSize: peer.cosignedSize
                ),
                eventID: run.eventID("witness_failing", of: name),
                stream: stream,
                outcome: .failure,
                reason: "submission_failed"
            )
            _ = try await self.store.append(AppendCommand(event))
            self.peers[name]?.failing?.recorded = true
        } catch {
            self.logger.warning(
                "could not record the witness's failures",
                metadata: ["witness": "\(name)", "error": "\(error)"]
            )
        }
    }
}
