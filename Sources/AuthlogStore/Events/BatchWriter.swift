import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes one batch of commands in one transaction, in parallel with other batches: no lock is shared
/// between batches. Runs entirely on the connection's own thread.
///
/// 1. `BEGIN`, one statement with the transaction's plan settings, the shared month lock
///    (``LogMonths/writerLock``) and the log's key, then the lookup of the stream versions and stored event ids
///    the batch touches (one round trip).
/// 2. ``BatchPlan`` decides every command (no database).
/// 3. The events and their queue rows for the sealer (one statement per 5,000 events), the projections and
///    `COMMIT` (one round trip). Rows go in with `ON CONFLICT DO NOTHING`; where a concurrent batch committed
///    the same `(stream, stream_version)` or `event_id` first, the insert raises ``EventRow/lostRaceState``,
///    the pipeline skips the rest, the transaction rolls back and the batch is planned again against the
///    newer versions, so the command that lost the race fails alone (or, expecting nothing, lands after it).
///
/// So a batch is two round trips and one commit, whatever its size.
enum BatchWriter {
    /// How often a batch is planned again after losing races (to another process's writer) before it fails.
    static let maximumAttempts = 32

    /// Writes `commands` as one transaction; when the database refuses the batch, each command is retried in
    /// a transaction of its own so that one bad command fails alone.
    /// Without `queueForSealing` the events are committed but never sealed: only the (a+) baseline of
    /// `authlog-bench store` (``ConventionalWriterBaseline``) writes that way.
    ///
    /// With `sealingWhenIdle` (the process has no other batch in flight and nothing waiting) the batch seals its
    /// own events in its own transaction when the queue is empty and no sealer holds the log head: one commit
    /// for the command instead of the writer's and the sealer's, and no queue row written and deleted
    /// (``SealStep/idleHeadLock``). Its results then carry the positions.
    static func write(
        _ commands: [PreparedCommand],
        queueForSealing: Bool = true,
        sealingWhenIdle: Bool = false,
        authenticator: EventAuthenticator? = nil,
        on connection: isolated Connection
    ) -> Outcome {
        let writing = Writing(
            queueForSealing: queueForSealing,
            sealsWhenIdle: queueForSealing && sealingWhenIdle,
            authenticator: authenticator
        )
        do {
            return .written(try self.writeRetryingConflicts(commands, writing, on: connection))
        } catch let failure as NotStarted {
            return .notStarted(failure.error)
        } catch let error as StoreError where error.code == .server && commands.count > 1 {
            return .written(
                commands.map { command in
                    do {
                        return try self.writeRetryingConflicts([command], writing, on: connection)[0]
                    } catch {
                        return .failure(Self.storeError(error))
                    }
                }
            )
        } catch {
            return .written(commands.map { _ in .failure(Self.storeError(error)) })
        }
    }

    /// What became of a batch.
    enum Outcome {
        /// The transaction ran; one result per command.
        case written([Result<AppendResult, StoreError>])
        /// The opening round trip (BEGIN and the lookup) failed, so nothing was written; the batch may be
        /// retried on another connection.
        case notStarted(StoreError)
    }

    private struct NotStarted: Error {
        let error: StoreError
    }

    /// How the batch is written: queued for the sealer or not, sealed in its own transaction when the sealer
    /// is idle or not, and authenticated with the event key or not.
    private struct Writing {
        let queueForSealing: Bool
        let sealsWhenIdle: Bool
        let authenticator: EventAuthenticator?
    }

    private static func storeError(_ error: any Error) -> StoreError {
        (error as? StoreError) ?? StoreError(.server, "the batch failed: \(error)")
    }

    private static func writeRetryingConflicts(
        _ commands: [PreparedCommand],
        _ writing: Writing,
        on connection: isolated Connection
    ) throws -> [Result<AppendResult, StoreError>] {
        for attempt in 1...Self.maximumAttempts {
            let results = try self.attempt(commands, writing, on: connection, isFirst: attempt == 1)
            if let results {
                return results
            }
            // Another process is writing the same streams: let it commit before planning again.
            usleep(UInt32.random(in: 100...(200 * UInt32(attempt))))
        }
        return commands.map { _ in
            .failure(StoreError(.wrongExpectedVersion, "the streams kept changing concurrently; try again"))
        }
    }

    /// One transaction; nil when a row lost a race to a concurrent batch and the transaction was rolled back.
    private static func attempt(
        _ commands: [PreparedCommand],
        _ writing: Writing,
        on connection: isolated Connection,
        isFirst: Bool
    ) throws -> [Result<AppendResult, StoreError>]? {
        // Not Connection.withTransaction: BEGIN goes in one pipeline with the writer lock and the lookup, and
        // COMMIT with the inserts' follow-ups; a lost race ends with ROLLBACK and no error, and a failure to
        // start is told apart (NotStarted). The scoped form would add a round trip at each end of every batch.
        let opening: [QueryResult]
        let proofs = commands.compactMap(\.command.dpopProof)
        do {
            // The head's lock comes after the lookup: an event of one of the batch's streams that the lookup
            // saw committed is either sealed or still queued then, and a queued one keeps the batch queued behind
            // it, so that no stream's events are sealed out of order.
            opening = try connection.pipeline(
                ["BEGIN", Self.openingStatement, self.lookup(for: commands)]
                    + (proofs.isEmpty ? [] : [DPoPProofRows.lookup(proofs)])
                    + (writing.sealsWhenIdle ? [SealStep.idleHeadLock] : [])
            )
        } catch {
            connection.rollbackQuietly()
            if isFirst { throw NotStarted(error: Self.storeError(error)) }
            throw error
        }
        do {
            // BEGIN's, the opening statement's (the log head's key last), the lookup's, then those of the
            // proofs already recorded and of the idle head, if asked.
            let expected = 3 + (proofs.isEmpty ? 0 : 1) + (writing.sealsWhenIdle ? 1 : 0)
            guard opening.count == expected, let head = opening[1].first else {
                throw StoreError(.server, "the batch lookup returned no result")
            }
            let lockedHead = writing.sealsWhenIdle ? opening[expected - 1].first : nil
            let logKeyID = try head.decode(ByteaValue?.self, at: Self.openingKeyColumn)?.bytes
            try EventKeyCheck.require(logKeyID: logKeyID, authenticator: writing.authenticator)
            let (versions, known) = try self.decodeLookup(opening[2])
            let recorded = try proofs.isEmpty ? [] : DPoPProofRows.decodeLookup(opening[3])
            let plan = BatchPlan(
                commands: commands,
                streamVersions: versions,
                knownEvents: known,
                recordedProofs: recorded,
                recordedAt: .now()
            )
            if plan.rows.isEmpty && plan.dpopProofs.isEmpty {
                try connection.execute("ROLLBACK")
                return plan.results
            }
            // The inserts (with their queue rows, or their leaves when the batch seals itself), the projections
            // and COMMIT in one round trip: a row that lost a race makes the insert raise, and the pipeline skips
            // everything after it, COMMIT included.
            let sealing = try plan.rows.isEmpty ? nil : lockedHead.map { try SealStep.sealing(plan.rows, head: $0) }
            var statements =
                EventRow.writerInserts(
                    plan.rows,
                    authenticator: writing.authenticator,
                    queueForSealing: writing.queueForSealing && sealing == nil
                ) + DPoPProofRows.inserts(plan.dpopProofs)
            statements += sealing?.statements ?? []
            statements += self.followUps(of: plan, writing, logKeyID: logKeyID)
            do {
                try connection.pipeline(statements)
            } catch let error as StoreError where error.sqlState == EventRow.lostRaceState {
                connection.rollbackQuietly()
                return nil
            }
            guard let positions = sealing?.positions else { return plan.results }
            return plan.results.map { result in
                result.map { appended in
                    AppendResult(
                        events: appended.events.map { event in
                            var event = event
                            event.position = event.position ?? positions[event.eventID]
                            return event
                        }
                    )
                }
            }
        } catch {
            connection.rollbackQuietly()
            throw error
        }
    }

    /// Settings of the writer's transaction, sent after `BEGIN` in its first round trip. Every statement of a
    /// batch has one text whatever the batch's size (array parameters), so it is prepared once per connection;
    /// a generic plan keeps it from being planned again on every call (planning the lookup over the partitioned
    /// log cost 7 times its execution). The plans stay keyed probes: the lookup's LATERAL probes are
    /// parameterized index scans, and each projection statement probes its key's index (see
    /// `WritePathPlanTests`).
    /// And with sequential scans priced out, the plan made while a table was empty or its statistics cold (a new
    /// or restored database, lagging autovacuum) probes the key's index too instead of reading the table. That
    /// price would put every plan over `jit_above_cost`, and compiling a one-row statement costs 100 ms or more,
    /// so JIT is off for the transaction.
    static let transactionSettings = [SQLQuery(unsafeSQL: "SELECT " + settingCalls)]

    private static let settingCalls = """
        set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true), \
        set_config('jit', 'off', true)
        """

    /// The transaction's first statement after `BEGIN`: its settings (``transactionSettings``), the shared month
    /// lock (``LogMonths/writerLock``, before the lookup, so that the lookup's snapshot sees every event of an
    /// earlier month) and the log head's event key id, in one statement instead of five (each statement of a
    /// pipeline costs the server its own bind, execution and result).
    static let openingStatement = SQLQuery(
        unsafeSQL: "SELECT \(settingCalls), \(LogMonths.writerLock), (SELECT event_key_id FROM authlog.log_head)"
    )

    /// The column of ``openingStatement`` that holds the log head's event key id.
    private static let openingKeyColumn = 4

    /// The statements after the inserts, ending with `COMMIT`: the log's mark as authenticated (for the first
    /// batch with the key), and the projections' changes.
    private static func followUps(of plan: BatchPlan, _ writing: Writing, logKeyID: [UInt8]?) -> [SQLQuery] {
        var statements: [SQLQuery] = []
        if let authenticator = writing.authenticator, logKeyID == nil {
            // The first batch with the key marks the log as authenticated (once; it briefly waits for the
            // head's row lock), so that no process without the key writes or seals after it.
            statements.append(
                """
                UPDATE authlog.log_head SET event_key_id = \(ByteaValue(authenticator.keyID))
                WHERE event_key_id IS NULL
                """
            )
        }
        // The statements count for the reports themselves, no trigger (docs/architecture.md, "The write path"):
        // the batch's INSERT its sign-ins and refused requests, the sessions' statements the sessions they start
        // and end (PendingReportCounts).
        statements += ProjectionWriter.live.statements(for: plan.changes, countingSignins: false)
        statements.append("COMMIT")
        return statements
    }

    /// The query for the stored event ids of the batch (with their positions once sealed) and the current
    /// version of every stream the batch touches, from the committed rows.
    static func lookup(for commands: [PreparedCommand]) -> SQLQuery {
        let ids = commands.flatMap { $0.events.map(\.eventID) }
        let streams = commands.reduce(into: Set<String>()) { $0.formUnion($1.streams) }
        // One probe per id and one `max()` per stream, so each is a single step down an index however long
        // the log is. The probes are LATERAL with LIMIT 1 so that the plan is a parameterized index scan per
        // id whatever the table's statistics said when the statement was prepared: an `= ANY(array)` join
        // prepared while the tables were small keeps a sequential scan (and a hash join) for the connection's
        // life, which costs a scan of the whole log per batch as it grows.
        return """
            SELECT r.event_id::text,
                   (SELECT l.position FROM authlog.log_leaves l
                    WHERE l.event_id = r.event_id AND l.log_month = r.log_month),
                   r.stream_version, true
            FROM unnest(\(ArrayLiteral(ids))::uuid[]) AS i(id)
            CROSS JOIN LATERAL (SELECT e.event_id, e.stream_version, e.log_month FROM authlog.event_records e
                                WHERE e.event_id = i.id LIMIT 1) r
            UNION ALL
            SELECT s.stream, NULL, v.version, false
            FROM unnest(\(ArrayLiteral(Array(streams)))::text[]) AS s(stream)
            CROSS JOIN LATERAL (SELECT max(e.stream_version) AS version FROM authlog.event_records e
                                WHERE e.stream = s.stream) v
            WHERE v.version IS NOT NULL
            """
    }

    private static func decodeLookup(
        _ result: QueryResult
    ) throws -> (versions: [String: Int32], known: [UUID: AppendedEvent]) {
        var versions: [String: Int32] = [:]
        var known: [UUID: AppendedEvent] = [:]
        for row in result.rows {
            let key = try row.decode(String.self, at: 0)
            let version = try row.decode(Int32.self, at: 2)
            if try row.decode(Bool.self, at: 3), let id = UUID(canonical: key) {
                known[id] = AppendedEvent(
                    eventID: id,
                    position: try row.decode(Int64?.self, at: 1),
                    streamVersion: version,
                    wasAlreadyStored: true
                )
            } else {
                versions[key] = version
            }
        }
        return (versions, known)
    }
}
