import AuthlogCore
import AuthlogCrypto
import Foundation

/// Writes one batch of commands in one transaction under the locked chain head: decides each command
/// against the stream versions, assigns gapless positions, computes the chain, inserts the events,
/// applies the projections and moves the head. Runs entirely on the connection's own thread.
enum BatchWriter {
    /// The most events one INSERT statement carries (20 parameters each, under libpq's 65,535).
    static let rowsPerInsert = 1000

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
                })
        } catch {
            return .written(commands.map { _ in .failure(Self.storeError(error)) })
        }
    }

    /// What became of a batch.
    enum Outcome {
        /// The transaction ran; one result per command.
        case written([Result<AppendResult, StoreError>])
        /// BEGIN failed, so nothing was sent; the batch may be retried on another connection.
        case notStarted(StoreError)
    }

    private struct NotStarted: Error {
        let error: StoreError
    }

    private static func storeError(_ error: any Error) -> StoreError {
        (error as? StoreError) ?? StoreError(.server, "the batch failed: \(error)")
    }

    private static func attempt(
        _ commands: [AppendCommand], on connection: isolated Connection
    ) throws -> [Result<AppendResult, StoreError>] {
        let head: QueryResult
        do {
            head = try connection.execute("BEGIN; SELECT position, hash FROM authlog.chain_head FOR UPDATE")
        } catch {
            connection.rollbackQuietly()
            throw NotStarted(error: Self.storeError(error))
        }
        do {
            guard let headRow = head.first else { throw StoreError(.schema, "authlog.chain_head has no row") }
            var state = BatchState(
                position: try headRow.decode(Int64.self, at: 0),
                hash: try headRow.decode(ByteaValue.self, at: 1).bytes,
                recordedAt: .now())
            try self.loadKnownEvents(for: commands, into: &state, on: connection)
            let results = commands.map { state.place($0) }
            var statements = self.insertStatements(state.rows)
            if !state.rows.isEmpty {
                statements += ProjectionWriter(schema: "authlog").statements(for: try ScopedChange.changes(of: state.rows))
                statements.append(
                    "UPDATE authlog.chain_head SET position = \(state.position), hash = \(ByteaValue(state.hash))")
            }
            statements.append("COMMIT")
            try connection.pipeline(statements)
            return results
        } catch {
            connection.rollbackQuietly()
            throw error
        }
    }

    /// Reads, in one query, the positions of the batch's event ids that are already stored and the current
    /// version of every stream the batch touches.
    private static func loadKnownEvents(
        for commands: [AppendCommand], into state: inout BatchState, on connection: isolated Connection
    ) throws {
        let ids = commands.flatMap { $0.events.map(\.eventID) }
        var streams = Set<String>()
        for command in commands {
            streams.formUnion(command.events.map(\.stream.rawValue))
            streams.formUnion(command.expectedVersions.keys.map(\.rawValue))
        }
        let known = try connection.query(
            """
            SELECT event_id::text, position, stream_version FROM authlog.events
            WHERE event_id = ANY(\(ArrayLiteral(ids))::uuid[])
            UNION ALL
            SELECT stream, NULL, max(stream_version) FROM authlog.events
            WHERE stream = ANY(\(ArrayLiteral(Array(streams)))::text[]) GROUP BY stream
            """)
        for row in known.rows {
            let key = try row.decode(String.self, at: 0)
            let version = try row.decode(Int32.self, at: 2)
            if let position = try row.decode(Int64?.self, at: 1), let id = UUID(uuidString: key) {
                state.knownEvents[id] = AppendedEvent(
                    eventID: id, position: position, streamVersion: version, wasAlreadyStored: true)
            } else {
                state.streamVersions[key] = version
            }
        }
    }

    private static func insertStatements(_ rows: [RecordedEvent]) -> [SQLQuery] {
        var statements: [SQLQuery] = []
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + Self.rowsPerInsert, rows.count)]
            var query = SQLQuery(
                unsafeSQL: """
                    INSERT INTO authlog.events (position, event_id, stream, stream_version, type, occurred_at,
                        recorded_at, outcome, reason, provider, user_id, session_id, client_id, ip, user_agent,
                        request_id, data, schema_version, prev_hash, hash) VALUES
                    """)
            for (index, row) in chunk.enumerated() {
                let event = row.envelope
                let placeholders = [
                    query.bind(row.position), query.bind(event.eventID), query.bind(event.stream.rawValue),
                    query.bind(row.streamVersion), query.bind(event.type.rawValue), query.bind(event.occurredAt),
                    query.bind(row.recordedAt), query.bind(event.outcome.rawValue), query.bind(event.reason),
                    query.bind(event.provider), query.bind(event.userID), query.bind(event.sessionID),
                    query.bind(event.clientID), query.bind(event.ip), query.bind(event.userAgent),
                    query.bind(event.requestID), query.bind(event.data), query.bind(event.schemaVersion),
                    query.bind(ByteaValue(row.prevHash)), query.bind(ByteaValue(row.hash)),
                ]
                query.append(unescaped: (index == 0 ? "(" : ",(") + placeholders.joined(separator: ",") + ")")
            }
            statements.append(query)
            start += Self.rowsPerInsert
        }
        return statements
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
                    StoreError(.wrongExpectedVersion, "stream \(stream) is at version \(current), expected \(expected)"))
            }
        }
        let savedPosition = self.position
        let savedHash = self.hash
        let savedRowCount = self.rows.count
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
                return .failure(
                    StoreError(
                        .wrongExpectedVersion,
                        "stream \(event.stream) is at version \(current), so the next event cannot be version \(given)",
                        eventIndex: index))
            }
            event.streamVersion = current + 1
            versions[event.stream.rawValue] = current + 1
            self.position += 1
            let canonical = CanonicalEventEncoding.bytes(
                position: self.position, envelope: event, recordedAt: self.recordedAt)
            let hash = SHA256.hash(self.hash, canonical)
            self.rows.append(
                RecordedEvent(
                    position: self.position, envelope: event, recordedAt: self.recordedAt, prevHash: self.hash,
                    hash: hash))
            self.hash = hash
            let placed = AppendedEvent(
                eventID: event.eventID, position: self.position, streamVersion: current + 1, wasAlreadyStored: false)
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
