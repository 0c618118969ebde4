public import AuthlogStore
public import Logging

/// Signs a checkpoint whenever one is due: `everyEvents` events were sealed since the last checkpoint, or
/// `everySeconds` passed and at least one was (the `audit.checkpoint_signed` events themselves do not count,
/// so an idle log signs nothing).
public struct CheckpointScheduler: Sendable {
    let checkpointer: Checkpointer
    let pool: ConnectionPool
    let everyEvents: Int
    let everySeconds: Int

    /// A scheduler for `checkpointer` with the resolved `settings`.
    public init(checkpointer: Checkpointer, pool: ConnectionPool, settings: CheckpointSettings) {
        self.checkpointer = checkpointer
        self.pool = pool
        self.everyEvents = settings.everyEvents
        self.everySeconds = settings.everySeconds
    }

    /// Checks once a second whether a checkpoint is due, until the task is cancelled.
    public func run(logger: Logger) async {
        var lastSigned = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            do {
                let fresh = try await self.eventsSinceLastCheckpoint()
                let timeIsUp = ContinuousClock.now - lastSigned >= .seconds(self.everySeconds)
                guard fresh >= self.everyEvents || (fresh > 0 && timeIsUp) else { continue }
                let signed = try await self.checkpointer.signNow()
                lastSigned = ContinuousClock.now
                if signed.isNew {
                    logger.info("signed a checkpoint", metadata: ["tree_size": .stringConvertible(signed.size)])
                }
            } catch {
                logger.warning("could not sign a checkpoint", metadata: ["error": .string("\(error)")])
            }
        }
    }

    /// Sealed events after the latest checkpoint, other than checkpoint records, counted up to `everyEvents`.
    private func eventsSinceLastCheckpoint() async throws -> Int {
        try await self.pool.withConnection { connection in
            let rows = try await connection.query(
                """
                SELECT count(*) FROM (
                    SELECT 1 FROM authlog.events
                    WHERE position > (SELECT coalesce(max(tree_size), 0) FROM authlog.checkpoints)
                      AND type <> 'audit.checkpoint_signed'
                    LIMIT \(self.everyEvents)) fresh
                """
            )
            return try rows.first?.decode(Int.self, at: 0) ?? 0
        }
    }
}
