public import AuthlogStore
public import Logging

/// Signs a checkpoint whenever one is due: `everyEvents` events were sealed since the last checkpoint, or
/// `everySeconds` passed and at least one was (the `audit.checkpoint_signed` events themselves do not count,
/// so an idle log signs nothing).
public actor CheckpointScheduler {
    let checkpointer: Checkpointer
    let pool: ConnectionPool
    let everyEvents: Int
    let everySeconds: Int
    private var lastSigned = ContinuousClock.now

    /// A scheduler for `checkpointer` with the resolved `settings`.
    public init(checkpointer: Checkpointer, pool: ConnectionPool, settings: CheckpointSettings) {
        self.checkpointer = checkpointer
        self.pool = pool
        self.everyEvents = settings.everyEvents
        self.everySeconds = settings.everySeconds
    }

    /// Signs a checkpoint when one is due (`serve` asks every second).
    public func signIfDue(logger: Logger) async {
        do {
            let fresh = try await self.eventsSinceLastCheckpoint()
            let timeIsUp = ContinuousClock.now - self.lastSigned >= .seconds(self.everySeconds)
            guard fresh >= self.everyEvents || (fresh > 0 && timeIsUp) else { return }
            let signed = try await self.checkpointer.signNow()
            self.lastSigned = ContinuousClock.now
            if signed.isNew {
                logger.info("signed a checkpoint", metadata: ["tree_size": .stringConvertible(signed.size)])
            }
        } catch {
            logger.warning("could not sign a checkpoint", metadata: ["error": .string("\(error)")])
        }
    }

    /// Sealed events after the latest checkpoint, other than checkpoint records, counted up to `everyEvents`.
    private nonisolated func eventsSinceLastCheckpoint() async throws -> Int {
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
