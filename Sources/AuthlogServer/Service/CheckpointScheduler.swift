public import AuthlogPostgres
public import AuthlogStore
public import Logging

/// Signs a checkpoint whenever one is due: `everyEvents` events were sealed since the last checkpoint, or
/// `everySeconds` passed since the last one was signed (or since the first event, before any) and at least
/// one event was sealed since (the `audit.checkpoint_signed` events themselves do not count, so an idle log
/// signs nothing).
///
/// Several `serve` processes share one database: each asks every second, but the decision is taken from
/// the database (the latest checkpoint's `signed_at`), under a session advisory lock that one process at a
/// time holds while it decides and signs. So exactly one checkpoint is signed per interval, whichever process
/// signs it; a process that dies holding the lock loses its connection, and with it the lock.
public struct CheckpointScheduler: Sendable {
    let checkpointer: Checkpointer
    let pool: ConnectionPool
    let everyEvents: Int
    let everySeconds: Int
    /// This process's failures to sign, put on the record; nil records none (`authlog checkpoint`'s own tests).
    let failures: CheckpointFailures?

    /// The advisory lock the signers take turns on (one bigint key, apart from the log's other locks).
    static let lock: SQLQuery = "SELECT pg_try_advisory_lock(hashtext('authlog.checkpoint-scheduler'))"
    static let unlock: SQLQuery = "SELECT pg_advisory_unlock(hashtext('authlog.checkpoint-scheduler'))"

    /// Runs `body` holding the signers' lock (waiting for it), as `authlog checkpoint` does, so that it never
    /// signs while a server is signing.
    /// - Throws: what `body` throws, or ``StoreError`` from the database.
    public static func whileSigning<T: Sendable>(pool: ConnectionPool, _ body: () async throws -> T) async throws -> T {
        let connection = try await pool.acquire()
        do {
            try await connection.query("SELECT pg_advisory_lock(hashtext('authlog.checkpoint-scheduler'))")
            let value: T
            do {
                value = try await body()
            } catch {
                _ = try? await connection.query(Self.unlock)
                throw error
            }
            try await connection.query(Self.unlock)
            await pool.release(connection)
            return value
        } catch {
            await pool.release(connection)
            throw error
        }
    }

    /// A scheduler for `checkpointer` with the resolved `settings`; an episode of failures to sign is recorded
    /// through `store` (`audit.checkpoint_failing`, `audit.checkpoint_recovered`).
    public init(
        checkpointer: Checkpointer,
        pool: ConnectionPool,
        settings: CheckpointSettings,
        recordingFailuresIn store: PostgresEventStore? = nil
    ) {
        self.checkpointer = checkpointer
        self.pool = pool
        self.everyEvents = settings.everyEvents
        self.everySeconds = settings.everySeconds
        self.failures = store.map(CheckpointFailures.init(store:))
    }

    /// Signs a checkpoint when one is due and no other process is deciding (`serve` asks every second);
    /// whether it signed a new one.
    @discardableResult
    public func signIfDue(logger: Logger) async -> Bool {
        do {
            let signed = try await self.pool.withConnection { connection -> Checkpointer.Signed? in
                guard try await connection.query(Self.lock).first?.decode(Bool.self, at: 0) == true else { return nil }
                do {
                    let signed = try await self.isDue(on: connection) ? try await self.checkpointer.signNow() : nil
                    try await connection.query(Self.unlock)
                    return signed
                } catch {
                    _ = try? await connection.query(Self.unlock)
                    throw error
                }
            }
            if let signed { await self.failures?.signed(size: signed.size, logger: logger) }
            if let signed, signed.isNew {
                logger.info("signed a checkpoint", metadata: ["tree_size": .stringConvertible(signed.size)])
                return true
            }
            return false
        } catch let refusal as CheckpointRefusal {
            // Recorded as audit.checkpoint_refused and shown in /readyz and /metrics by the checkpointer.
            logger.error(
                "refused to sign a checkpoint: the log contradicts the last one signed",
                metadata: [
                    "reason": .string(refusal.reason.rawValue), "tree_size": .stringConvertible(refusal.treeSize),
                    "last_signed_size": .stringConvertible(refusal.lastSigned.size), "detail": .string(refusal.detail),
                ]
            )
        } catch {
            logger.warning("could not sign a checkpoint", metadata: ["error": .string("\(error)")])
            await self.failures?.failed(error, logger: logger)
        }
        return false
    }

    /// Whether a checkpoint is due: the sealed events after the latest checkpoint, other than checkpoint
    /// records (counted up to `everyEvents`), and the seconds since it was signed (before the first: since
    /// the log's first event).
    private func isDue(on connection: Connection) async throws -> Bool {
        let rows = try await connection.query(
            """
            SELECT (SELECT count(*) FROM (
                        SELECT 1 FROM authlog.events
                        WHERE position > (SELECT coalesce(max(tree_size), 0) FROM authlog.checkpoints)
                          AND type <> 'audit.checkpoint_signed'
                        LIMIT \(self.everyEvents)) fresh),
                   clock_timestamp() - coalesce(
                       (SELECT max(signed_at) FROM authlog.checkpoints),
                       (SELECT recorded_at FROM authlog.events ORDER BY position LIMIT 1),
                       clock_timestamp()) >= make_interval(secs => \(self.everySeconds))
            """
        )
        guard let row = rows.first else { return false }
        let fresh = try row.decode(Int.self, at: 0)
        let timeIsUp = try row.decode(Bool.self, at: 1)
        return fresh >= self.everyEvents || (fresh > 0 && timeIsUp)
    }
}
