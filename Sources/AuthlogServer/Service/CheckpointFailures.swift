import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation
import Logging
import Synchronization

/// This process's failures to sign a checkpoint, as an episode on the record (PCI DSS 4.0.1 10.7.2): at the
/// ``AuditCheckpointFailing/threshold``th failure in a row `audit.checkpoint_failing`, at the next checkpoint
/// signed `audit.checkpoint_recovered`. A contradiction is not counted (``CheckpointRefusal`` records itself as
/// `audit.checkpoint_refused`), nor a database that cannot be reached (nothing could be recorded; the write path
/// records its outage). Each event's id is made from the episode's start, so one recorded twice is stored once.
final class CheckpointFailures: Sendable {
    private let store: PostgresEventStore
    private let episode = Mutex<FailureEpisode?>(nil)
    /// The size of the last checkpoint this process signed (or found signed at its turn).
    private let lastSigned = Mutex<Int64?>(nil)

    /// Failures recorded through `store`.
    init(store: PostgresEventStore) { self.store = store }

    /// Counts a failure of signing; records the episode when the count reaches the threshold.
    func failed(_ error: any Error, logger: Logger) async {
        // Only the signer's own failures: what PostgreSQL reported (a timeout, a read-only standby after a failover)
        // is the database's, and an unreachable one is recorded as the write path's outage.
        if (error as? any StoreFailure)?.meansStoreUnreachable == true { return }
        if let error = error as? StoreError, error.sqlState != nil { return }
        self.store.integrity.signingFailed()
        let (run, due) = self.episode.withLock { episode -> (FailureEpisode, Bool) in
            var run = episode ?? FailureEpisode(since: .now())
            let due = run.fail(String(Self.describe(error).prefix(200)), threshold: AuditCheckpointFailing.threshold)
            episode = run
            return (run, due)
        }
        guard due else { return }
        do {
            let event = try EventEnvelope(
                AuditCheckpointFailing(
                    failingSince: run.since.description,
                    failures: run.failures,
                    lastError: run.lastError,
                    lastSignedSize: self.lastSigned.withLock { $0 }
                ),
                eventID: run.eventID("checkpoint_failing"),
                stream: StreamName(category: "audit", id: "checkpoints"),
                outcome: .failure,
                reason: "signing_failed"
            )
            _ = try await self.store.append(AppendCommand(event))
            self.episode.withLock { $0?.recorded = true }
        } catch {
            logger.warning("could not record audit.checkpoint_failing", metadata: ["error": "\(error)"])
        }
    }

    /// A checkpoint of `size` was signed: the episode, if one was recorded, ends on the record.
    func signed(size: Int64, logger: Logger) async {
        self.lastSigned.withLock { $0 = size }
        guard let run = self.episode.withLock({ $0 }) else { return }
        guard run.recorded else {
            self.episode.withLock { $0 = nil }
            return
        }
        do {
            let event = try EventEnvelope(
                AuditCheckpointRecovered(
                    failingSince: run.since.description,
                    recoveredAt: Timestamp.now().description,
                    failures: run.failures,
                    signedSize: size
                ),
                eventID: run.eventID("checkpoint_recovered"),
                stream: StreamName(category: "audit", id: "checkpoints"),
                outcome: .success
            )
            _ = try await self.store.append(AppendCommand(event))
            self.episode.withLock { $0 = nil }
        } catch {
            logger.warning("could not record audit.checkpoint_recovered", metadata: ["error": "\(error)"])
        }
    }

    /// One line on `error` for the record: authlog's own sentence for a failure it found itself (the signer's
    /// state, the key; it may name the file), else the error's type.
    static func describe(_ error: any Error) -> String {
        if let error = error as? StoreError { return error.message }
        return "\(type(of: error))"
    }
}
