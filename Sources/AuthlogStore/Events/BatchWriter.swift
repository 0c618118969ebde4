import AuthlogCore
import AuthlogCrypto
import Foundation

/// Writes one batch of commands in one transaction under the locked chain head: decides each command
/// against the stream versions, assigns gapless positions, computes the chain, inserts the events,
/// applies the projections and moves the head. Runs entirely on the connection's own thread.
enum BatchWriter {
    /// The most events one INSERT statement carries.
    static let rowsPerInsert = 5000

    /// Writes `commands` as one transaction; when the database refuses the batch, each command is retried in
    /// a transaction of its own so that one bad command fails alone.
    static func write(_ commands: [AppendCommand], on connection: isolated Connection) -> Outcome {
        do {
            return .written(try self.attempt(commands, on: connection))
        } catch let failure as NotStarted {
            return .notStarted(failure.error)
        } catch let error as StoreError where error.code == .server && commands.count > 1 {
            return .written(
                commands.map { command in
                    do {
                        return try self.attempt([command], on: connection)[0]
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
        /// The opening round trip (BEGIN, the head lock, the lookups) failed, so nothing was written; the
        /// batch may be retried on another connection.
        case notStarted(StoreError)
    }

    private struct NotStarted: Error {
        let error: StoreError
    }

    private static func storeError(_ error: any Error) -> StoreError {
        (error as? StoreError) ?? StoreError(.server, "the batch failed: \(error)")
    }

    private static func attempt(
        _ commands: [AppendCommand],
        on connection: isolated Connection
    ) throws -> [Result<AppendResult, StoreError>] {
        let opening: [QueryResult]
        do {
            opening = try connection.pipeline([
                "BEGIN", "SELECT position, hash FROM authlog.chain_head FOR UPDATE", self.lookup(for: commands),
            ])
        } catch {
            connection.rollbackQuietly()
            throw NotStarted(error: Self.storeError(error))
        }
        do {
            guard opening.count == 3, let headRow = opening[1].first else {
                throw StoreError(.schema, "authlog.chain_head has no row")
            }
            var state = BatchState(
                position: try headRow.decode(Int64.self, at: 0),
                hash: try headRow.decode(ByteaValue.self, at: 1).bytes,
                recordedAt: .now()
            )
            try self.load(opening[2], into: &state)
            let results = commands.map { state.place($0) }
            var statements = self.insertStatements(state.rows)
            if !state.rows.isEmpty {
                statements += ProjectionWriter(schema: "authlog").statements(for: state.changes)
                statements.append(
                    "UPDATE authlog.chain_head SET position = \(state.position), hash = \(ByteaValue(state.hash))"
                )
            }
            statements.append("COMMIT")
            try connection.pipeline(statements)
            return results
        } catch {
            connection.rollbackQuietly()
            throw error
        }
    }

    /// The query for the positions of the batch's event ids that are already stored and the current
    /// version of every stream the batch touches. It runs after the head row is locked, so no other
    /// process can change either before this batch commits.
    private static func lookup(for commands: [AppendCommand]) -> SQLQuery {
        let ids = commands.flatMap { $0.events.map(\.eventID) }
        var streams = Set<String>()
        for command in commands {
            streams.formUnion(command.events.map(\.stream.rawValue))
            streams.formUnion(command.expectedVersions.keys.map(\.rawValue))
        }
        // One `max()` per stream, so each is a single step down the (stream, stream_version) index however
        // long the stream is (a GROUP BY would read every version of every stream).
        return """
            SELECT event_id::text, position, stream_version FROM authlog.events
            WHERE event_id = ANY(\(ArrayLiteral(ids))::uuid[])
            UNION ALL
            SELECT s.stream, NULL, v.version
            FROM unnest(\(ArrayLiteral(Array(streams)))::text[]) AS s(stream)
            CROSS JOIN LATERAL (SELECT max(e.stream_version) AS version FROM authlog.events e WHERE e.stream = s.stream) v
            WHERE v.version IS NOT NULL
            """
    }

    private static func load(_ known: QueryResult, into state: inout BatchState) throws {
        for row in known.rows {
            let key = try row.decode(String.self, at: 0)
            let version = try row.decode(Int32.self, at: 2)
            if let position = try row.decode(Int64?.self, at: 1), let id = UUID(uuidString: key) {
                state.knownEvents[id] = AppendedEvent(
                    eventID: id,
                    position: position,
                    streamVersion: version,
                    wasAlreadyStored: true
                )
            } else {
                state.streamVersions[key] = version
            }
        }
    }

    /// One `INSERT … SELECT FROM unnest(…)` per 5,000 events: twenty array parameters, one per column, so
    /// the server parses and plans a short statement however many rows it carries.
    private static func insertStatements(_ rows: [RecordedEvent]) -> [SQLQuery] {
        stride(from: 0, to: rows.count, by: Self.rowsPerInsert).map { start in
            let chunk = rows[start..<min(start + Self.rowsPerInsert, rows.count)]
            var columns = [[String?]](repeating: [], count: 20)
            for index in columns.indices { columns[index].reserveCapacity(chunk.count) }
            for row in chunk {
                let event = row.envelope
                let values: [String?] = [
                    row.position.sqlText, event.eventID.sqlText, event.stream.rawValue, row.streamVersion.sqlText,
                    event.type.rawValue, event.occurredAt.sqlText, row.recordedAt.sqlText, event.outcome.rawValue,
                    event.reason, event.provider, event.userID?.sqlText, event.sessionID?.sqlText, event.clientID,
                    event.ip?.sqlText, event.userAgent, event.requestID, event.data.sqlText,
                    event.schemaVersion.sqlText,
                    ByteaValue(row.prevHash).sqlText, ByteaValue(row.hash).sqlText,
                ]
                for (index, value) in values.enumerated() { columns[index].append(value) }
            }
            return """
                INSERT INTO authlog.events (position, event_id, stream, stream_version, type, occurred_at, recorded_at,
                    outcome, reason, provider, user_id, session_id, client_id, ip, user_agent, request_id, data,
                    schema_version, prev_hash, hash)
                SELECT * FROM unnest(\(ArrayLiteral(columns[0]))::bigint[], \(ArrayLiteral(columns[1]))::uuid[],
                    \(ArrayLiteral(columns[2]))::text[], \(ArrayLiteral(columns[3]))::integer[],
                    \(ArrayLiteral(columns[4]))::text[], \(ArrayLiteral(columns[5]))::timestamptz[],
                    \(ArrayLiteral(columns[6]))::timestamptz[], \(ArrayLiteral(columns[7]))::text[],
                    \(ArrayLiteral(columns[8]))::text[], \(ArrayLiteral(columns[9]))::text[],
                    \(ArrayLiteral(columns[10]))::uuid[], \(ArrayLiteral(columns[11]))::uuid[],
                    \(ArrayLiteral(columns[12]))::text[], \(ArrayLiteral(columns[13]))::inet[],
                    \(ArrayLiteral(columns[14]))::text[], \(ArrayLiteral(columns[15]))::text[],
                    \(ArrayLiteral(columns[16]))::jsonb[], \(ArrayLiteral(columns[17]))::smallint[],
                    \(ArrayLiteral(columns[18]))::bytea[], \(ArrayLiteral(columns[19]))::bytea[])
                """
        }
    }
}

/// What a batch has decided so far: the chain head, stream versions and the rows to insert.
struct BatchState {
    var position: Int64
    var hash: [UInt8]
    let recordedAt: Timestamp
    var streamVersions: [String: Int32] = [:]
    var knownEvents: [UUID: AppendedEvent] = [:]
    var rows: [RecordedEvent] = []
    /// The projection changes of the placed rows, in order.
    var changes: [ScopedChange] = []

    init(position: Int64, hash: [UInt8], recordedAt: Timestamp) {
        self.position = position
        self.hash = hash
        self.recordedAt = recordedAt
    }

    /// Decides one command: on success its events join the batch; on a version conflict nothing changes.
    mutating func place(_ command: AppendCommand) -> Result<AppendResult, StoreError> {
        var versions: [String: Int32] = [:]
        var placedHere: [UUID: AppendedEvent] = [:]
        func version(of stream: String) -> Int32 { versions[stream] ?? self.streamVersions[stream] ?? 0 }

        for (stream, expected) in command.expectedVersions {
            let current = version(of: stream.rawValue)
            let matches: Bool
            switch expected {
            case .any: matches = true
            case .noStream: matches = current == 0
            case .exactly(let version): matches = current == version
            }
            if !matches {
                return .failure(
                    StoreError(.wrongExpectedVersion, "stream \(stream) is at version \(current), expected \(expected)")
                )
            }
        }
        let savedPosition = self.position
        let savedHash = self.hash
        let savedRowCount = self.rows.count
        let savedChangeCount = self.changes.count
        var appended: [AppendedEvent] = []
        for (index, var event) in command.events.enumerated() {
            if let known = placedHere[event.eventID] ?? self.knownEvents[event.eventID] {
                appended.append(known)
                continue
            }
            let current = version(of: event.stream.rawValue)
            if let given = event.streamVersion, given != current + 1 {
                self.position = savedPosition
                self.hash = savedHash
                self.rows.removeSubrange(savedRowCount...)
                self.changes.removeSubrange(savedChangeCount...)
                return .failure(
                    StoreError(
                        .wrongExpectedVersion,
                        "stream \(event.stream) is at version \(current), so the next event cannot be version \(given)",
                        eventIndex: index
                    )
                )
            }
            event.streamVersion = current + 1
            versions[event.stream.rawValue] = current + 1
            self.position += 1
            let canonical = CanonicalEventEncoding.bytes(
                position: self.position,
                envelope: event,
                recordedAt: self.recordedAt
            )
            let hash = SHA256.hash(self.hash, canonical)
            self.rows.append(
                RecordedEvent(
                    position: self.position,
                    envelope: event,
                    recordedAt: self.recordedAt,
                    prevHash: self.hash,
                    hash: hash
                )
            )
            self.hash = hash
            precondition(index < command.projectionChanges.count, "EventStore prepares every command it queues")
            self.changes += command.projectionChanges[index]
            let placed = AppendedEvent(
                eventID: event.eventID,
                position: self.position,
                streamVersion: current + 1,
                wasAlreadyStored: false
            )
            placedHere[event.eventID] = placed
            appended.append(placed)
        }
        self.streamVersions.merge(versions) { _, new in new }
        self.knownEvents.merge(
            placedHere.mapValues { placed in
                var stored = placed
                stored.wasAlreadyStored = true
                return stored
            }
        ) { _, new in new }
        return .success(AppendResult(events: appended))
    }
}
