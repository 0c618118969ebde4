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
/// 1. `BEGIN`, the shared month lock (``LogMonths/writerLock``) and the lookup of the stream versions and stored
///    event ids the batch touches (one round trip).
/// 2. ``BatchPlan`` decides every command (no database).
/// 3. The events are inserted with `ON CONFLICT DO NOTHING`: where a concurrent batch committed the same
///    `(stream, stream_version)` or `event_id` first, the row is skipped instead of aborting the batch.
/// 4. When every row went in: the queue rows for the sealer, the projections and `COMMIT` (one round trip).
///    When one was skipped, the transaction rolls back and the batch is planned again against the newer
///    versions, so the command that lost the race fails alone (or, expecting nothing, lands after it).
enum BatchWriter {
    /// How often a batch is planned again after losing races (to another process's writer) before it fails.
    static let maximumAttempts = 32

    /// Writes `commands` as one transaction; when the database refuses the batch, each command is retried in
    /// a transaction of its own so that one bad command fails alone.
    /// Without `queueForSealing` the events are committed but never sealed: only the (a+) baseline of
    /// `authlog-bench store` (``ConventionalWriterBaseline``) writes that way.
    static func write(
        _ commands: [PreparedCommand],
        queueForSealing: Bool = true,
        authenticator: EventAuthenticator? = nil,
        on connection: isolated Connection
    ) -> Outcome {
        let writing = Writing(queueForSealing: queueForSealing, authenticator: authenticator)
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

    /// How the batch is written: queued for the sealer or not, and authenticated with the event key or not.
    private struct Writing {
        let queueForSealing: Bool
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
        do {
            opening = try connection.pipeline(
                [
                    "BEGIN", LogMonths.writerLock, self.lookup(for: commands),
                    "SELECT event_key_id FROM authlog.log_head",
                ]
            )
        } catch {
            connection.rollbackQuietly()
            if isFirst { throw NotStarted(error: Self.storeError(error)) }
            throw error
        }
        do {
            guard opening.count == 4 else { throw StoreError(.server, "the batch lookup returned no result") }
            let logKeyID = try opening[3].first?.decode(ByteaValue?.self, at: 0)?.bytes
            try EventKeyCheck.require(logKeyID: logKeyID, authenticator: writing.authenticator)
            let (versions, known) = try self.decodeLookup(opening[2])
            let plan = BatchPlan(commands: commands, streamVersions: versions, knownEvents: known, recordedAt: .now())
            if plan.rows.isEmpty {
                try connection.execute("ROLLBACK")
                return plan.results
            }
            let inserted = try connection.pipeline(EventRow.inserts(plan.rows, authenticator: writing.authenticator))
                .reduce(0) { $0 + $1.rows.count }
            if inserted < plan.rows.count {
                try connection.execute("ROLLBACK")
                return nil
            }
            try connection.pipeline(self.followUps(of: plan, writing, logKeyID: logKeyID))
            return plan.results
        } catch {
            connection.rollbackQuietly()
            throw error
        }
    }

    /// The statements after the inserts, ending with `COMMIT`: the queue rows for the sealer, the log's mark as
    /// authenticated (for the first batch with the key), and the projections' changes.
    private static func followUps(of plan: BatchPlan, _ writing: Writing, logKeyID: [UInt8]?) -> [SQLQuery] {
        var statements =
            writing.queueForSealing ? [EventRow.enqueue(plan.rows, authenticator: writing.authenticator)] : []
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
        // Triggers count for the reports in this transaction too (docs/architecture.md, "The write path"):
        // event_records_count_signins (authlog.count_signins) fired on the batch's INSERT, and
        // sessions_count_started / sessions_count_ended (authlog.count_sessions_started,
        // authlog.count_session_ended) fire on these statements' sessions rows.
        statements += ProjectionWriter(schema: "authlog").statements(for: plan.changes, countingSignins: false)
        statements.append("COMMIT")
        return statements
    }

    /// The query for the stored event ids of the batch (with their positions once sealed) and the current
    /// version of every stream the batch touches, from the committed rows.
    private static func lookup(for commands: [PreparedCommand]) -> SQLQuery {
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
            if try row.decode(Bool.self, at: 3), let id = UUID(uuidString: key) {
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
