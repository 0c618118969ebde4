public import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import Foundation

/// The event row, defined once: the columns of `authlog.event_records`, the INSERT the writers run, the
/// columns of the sealed view `authlog.events` that readers select, and the decoding of a selected row.
public enum EventRow {
    /// An event as a writer inserts it: its envelope with the stream version decided, the commit time and
    /// the digest of its canonical bytes.
    struct Committed: Sendable {
        let envelope: EventEnvelope
        let recordedAt: Timestamp
        let digest: [UInt8]
        /// The reducer's `countSignin` of this event, which the sealer adds to `signins_daily`.
        let signinCount: SigninCount?

        init(envelope: EventEnvelope, recordedAt: Timestamp, changes: [ScopedChange] = []) {
            self.envelope = envelope
            self.recordedAt = recordedAt
            self.digest = EventRow.digest(of: envelope, recordedAt: recordedAt)
            self.signinCount =
                changes.lazy.compactMap { scoped -> SigninCount? in
                    guard case .countSignin(let day, let provider, let outcome) = scoped.change else { return nil }
                    return SigninCount(
                        day: Timestamp(microsecondsSinceEpoch: day * 86_400_000_000).dayString,
                        provider: provider,
                        outcome: outcome.rawValue
                    )
                }.first
        }
    }

    /// One sign-in to count in `signins_daily`: its UTC day (`YYYY-MM-DD`), provider and outcome.
    struct SigninCount: Sendable, Hashable {
        let day: String
        let provider: String
        let outcome: String
    }

    /// SHA-256 of the event's canonical bytes: what its leaf covers.
    public static func digest(of envelope: EventEnvelope, recordedAt: Timestamp) -> [UInt8] {
        SHA256.hash(CanonicalEventEncoding.bytes(envelope: envelope, recordedAt: recordedAt))
    }

    /// The columns every INSERT fills, in the order of its arrays; migration 6 (`stampingMonth: false`), which
    /// predates the months and the MACs, fills only these.
    static let insertedColumns = """
        event_id, stream, stream_version, type, occurred_at, recorded_at, outcome, reason, provider, user_id, \
        session_id, client_id, ip, user_agent, request_id, data, schema_version, digest
        """

    /// The most events one INSERT statement carries.
    static let rowsPerInsert = 5000

    /// The INSERTs of `rows`, one per 5,000 events: one array parameter per column, so the server parses
    /// and plans a short statement however many rows it carries. A row whose `event_id` or
    /// `(stream, stream_version)` is taken by a committed row is skipped (`ON CONFLICT DO NOTHING`); each
    /// statement returns the ids it inserted. Each row is stamped with the log's current month
    /// (``LogMonths``); only migration 6, which predates the months, inserts without (`stampingMonth: false`).
    static func inserts(
        _ rows: [Committed],
        authenticator: EventAuthenticator? = nil,
        stampingMonth: Bool = true
    ) -> [SQLQuery] {
        stride(from: 0, to: rows.count, by: Self.rowsPerInsert).map { start in
            let chunk = Array(rows[start..<min(start + Self.rowsPerInsert, rows.count)])
            var query = SQLQuery(unsafeSQL: "")
            Self.appendInsert(
                chunk,
                macs: Self.macs(of: chunk, authenticator),
                stampingMonth: stampingMonth,
                to: &query
            )
            query.append(unescaped: "\nRETURNING event_id::text")
            return query
        }
    }

    /// The writer's statements for `rows`, one per 5,000 events: each inserts its events as ``inserts(_:authenticator:stampingMonth:)``
    /// does, the report roll-ups' counts of its sign-ins and refused requests (``PendingReportCounts/events(ofTypes:)``)
    /// and, with `queueForSealing`, their queue rows for the sealer (as ``enqueue(_:authenticator:withMAC:)``),
    /// in one statement; it returns one row. When a concurrent batch took one of the rows first
    /// (`ON CONFLICT DO NOTHING` skipped it), `authlog.require_all_inserted` raises SQLSTATE `AL409`
    /// (``lostRaceState``), which aborts the transaction so that the COMMIT behind it in the pipeline never runs.
    static func writerInserts(
        _ rows: [Committed],
        authenticator: EventAuthenticator?,
        queueForSealing: Bool
    ) -> [SQLQuery] {
        stride(from: 0, to: rows.count, by: Self.rowsPerInsert).map { start in
            let chunk = Array(rows[start..<min(start + Self.rowsPerInsert, rows.count)])
            let macs = Self.macs(of: chunk, authenticator)
            var query = SQLQuery(unsafeSQL: "WITH inserted AS (")
            Self.appendInsert(chunk, macs: macs, stampingMonth: true, to: &query)
            query.append(unescaped: "\nRETURNING \(PendingReportCounts.eventColumns))")
            if let counts = PendingReportCounts.events(ofTypes: Set(chunk.map(\.envelope.type.rawValue))) {
                query.append(unescaped: ", counted AS (\(counts))")
            }
            if queueForSealing {
                query.append(unescaped: ", queued AS (")
                Self.appendEnqueue(chunk, macs: macs, withMAC: true, to: &query)
                query.append(unescaped: ")")
            }
            let expected = query.bind(Int64(chunk.count))
            query.append(unescaped: " SELECT authlog.require_all_inserted(count(*), \(expected)::bigint) FROM inserted")
            return query
        }
    }

    /// The SQLSTATE `authlog.require_all_inserted` raises when a batch lost a race for one of its rows.
    static let lostRaceState = "AL409"

    /// Each row's MAC in text form (nil without an authenticator).
    private static func macs(of rows: [Committed], _ authenticator: EventAuthenticator?) -> [String?] {
        rows.map { row in authenticator.map { ByteaValue($0.mac(of: row.digest)).sqlText } }
    }

    /// `INSERT INTO authlog.event_records … ON CONFLICT DO NOTHING` of `rows`, one array parameter per column.
    private static func appendInsert(
        _ rows: [Committed],
        macs: [String?],
        stampingMonth: Bool,
        to query: inout SQLQuery
    ) {
        var columns = [[String?]](repeating: [], count: 18)
        for index in columns.indices { columns[index].reserveCapacity(rows.count) }
        for row in rows {
            let event = row.envelope
            let values: [String?] = [
                event.eventID.sqlText, event.stream.rawValue, event.streamVersion.map { String($0) },
                event.type.rawValue, event.occurredAt.sqlText, row.recordedAt.sqlText, event.outcome.rawValue,
                event.reason, event.provider, event.userID?.sqlText, event.sessionID?.sqlText, event.clientID,
                event.ip?.sqlText, event.userAgent, event.requestID, event.data.sqlText,
                event.schemaVersion.sqlText, ByteaValue(row.digest).sqlText,
            ]
            for (index, value) in values.enumerated() { columns[index].append(value) }
        }
        columns.append(macs)
        let types = [
            "uuid", "text", "integer", "text", "timestamptz", "timestamptz", "text", "text", "text", "uuid", "uuid",
            "text", "inet", "text", "text", "jsonb", "smallint", "bytea", "bytea",
        ]
        query.append(
            unescaped: """
                INSERT INTO authlog.event_records (\(Self.insertedColumns)\(stampingMonth ? ", mac, log_month" : ""))
                SELECT \(Self.insertedColumns)\(stampingMonth ? ", mac, " + LogMonths.currentMonth : "") FROM unnest(
                """
        )
        UnnestColumns.appendArrays(Array(zip(columns.map(ArrayLiteral.init), types)), to: &query)
        query.append(unescaped: ") AS u(\(Self.insertedColumns), mac)\nON CONFLICT DO NOTHING")
    }

    /// The queue rows that hand committed events to the sealer, in the given order (the queue's identity
    /// follows the INSERT's row order).
    static func enqueue(
        _ rows: [EventRow.Committed],
        authenticator: EventAuthenticator? = nil,
        withMAC: Bool = true
    ) -> SQLQuery {
        var query = SQLQuery(unsafeSQL: "")
        Self.appendEnqueue(rows, macs: Self.macs(of: rows, authenticator), withMAC: withMAC, to: &query)
        return query
    }

    private static func appendEnqueue(
        _ rows: [EventRow.Committed],
        macs: [String?],
        withMAC: Bool,
        to query: inout SQLQuery
    ) {
        let arrays: [(ArrayLiteral, String)] = [
            (ArrayLiteral(rows.map(\.envelope.eventID)), "uuid"),
            (ArrayLiteral(rows.map { ByteaValue($0.digest) }), "bytea"),
            (ArrayLiteral(macs), "bytea"), (ArrayLiteral(rows.map { $0.signinCount?.day }), "date"),
            (ArrayLiteral(rows.map { $0.signinCount?.provider }), "text"),
            (ArrayLiteral(rows.map { $0.signinCount?.outcome }), "text"),
        ]
        query.append(
            unescaped: """
                INSERT INTO authlog.unsealed_events (event_id, digest, \(withMAC ? "mac, " : "")signin_day,
                    signin_provider, signin_outcome)
                SELECT id, digest, \(withMAC ? "mac, " : "")day, provider, outcome
                FROM unnest(
                """
        )
        UnnestColumns.appendArrays(arrays, to: &query)
        query.append(unescaped: ") WITH ORDINALITY AS q(id, digest, mac, day, provider, outcome, n)\nORDER BY n")
    }

    /// The select list of a stored event in the order ``decode(_:)`` expects, from the row `table` (which has
    /// the columns of `authlog.event_records`), with the position, digest and leaf hash given as expressions.
    static func columns(of table: String, position: String, digest: String, leafHash: String) -> String {
        let envelope = [
            "event_id", "stream", "stream_version", "type", "occurred_at", "recorded_at", "outcome", "reason",
            "provider", "user_id", "session_id", "client_id", "ip", "user_agent", "request_id", "data::text",
            "schema_version",
        ]
        return ([position] + envelope.map { "\(table).\($0)" } + [digest, leafHash]).joined(separator: ", ")
    }

    /// The select list of a sealed event in the view `authlog.events`.
    static let sealedColumns = Self.columns(
        of: "events",
        position: "events.position",
        digest: "events.digest",
        leafHash: "events.leaf_hash"
    )

    /// The select list of ``sealedColumns`` as plain SQL text, for statements outside the store (the export
    /// benchmark's COPY baseline reads the same rows).
    public static var exportedColumns: String { Self.sealedColumns }

    /// Decodes one row selected with ``sealedColumns``.
    static func decode(_ row: QueryRow) throws -> RecordedEvent {
        let position = try row.decode(Int64.self, at: 0)
        func fail(_ field: String) -> StoreError {
            StoreError(.decoding, "event at position \(position) has an invalid \(field)")
        }
        guard let stream = StreamName(rawValue: try row.decode(String.self, at: 2)) else { throw fail("stream") }
        guard let type = EventType(rawValue: try row.decode(String.self, at: 4)) else { throw fail("type") }
        guard let outcome = Outcome(rawValue: try row.decode(String.self, at: 7)) else { throw fail("outcome") }
        let envelope = EventEnvelope(
            eventID: try row.decode(UUID.self, at: 1),
            stream: stream,
            streamVersion: try row.decode(Int32.self, at: 3),
            type: type,
            occurredAt: try row.decode(Timestamp.self, at: 5),
            outcome: outcome,
            reason: try row.decode(String?.self, at: 8),
            provider: try row.decode(String?.self, at: 9),
            userID: try row.decode(UUID?.self, at: 10),
            sessionID: try row.decode(UUID?.self, at: 11),
            clientID: try row.decode(String?.self, at: 12),
            ip: try row.decode(IPAddress?.self, at: 13),
            userAgent: try row.decode(String?.self, at: 14),
            requestID: try row.decode(String?.self, at: 15),
            data: try row.decode(JSONValue.self, at: 16),
            schemaVersion: try row.decode(Int16.self, at: 17),
            normalizing: false
        )
        return RecordedEvent(
            position: position,
            envelope: envelope,
            recordedAt: try row.decode(Timestamp.self, at: 6),
            digest: try row.decode(ByteaValue.self, at: 18).bytes,
            leafHash: try row.decode(ByteaValue.self, at: 19).bytes
        )
    }
}
