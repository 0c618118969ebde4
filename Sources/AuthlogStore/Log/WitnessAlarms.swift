public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// The witnesses' alarms as the log holds them: each witness has the stream `audit-witness.<name>`, and an
/// `audit.witness_alarm` on it stands until an `audit.witness_alarm_cleared` follows it. Both are appended expecting
/// the stream's version, so processes that see one refusal record one alarm, and a clear clears the alarm its
/// operator saw. The log is where the alarm is kept: it survives restarts and is the same for every process.
public enum WitnessAlarms {
    /// An alarm that stands.
    public struct Standing: Sendable, Equatable {
        /// The witness's name.
        public var witness: String
        /// The `audit.witness_alarm` event.
        public var eventID: UUID
        /// Its envelope's reason (``AuditWitnessAlarm/Reason``).
        public var reason: String
        /// The size of the checkpoint the witness refused.
        public var treeSize: Int64
        /// What its answer means.
        public var detail: String
        /// When it was recorded.
        public var raisedAt: Timestamp
    }

    /// Where a witness stands: its stream's version (0 before its first event) and its alarm, if one stands.
    public struct State: Sendable, Equatable {
        /// The stream's version.
        public var version: Int32
        /// The alarm in force.
        public var alarm: Standing?
    }

    /// The stream of `witness`'s alarms.
    public static func stream(of witness: String) -> StreamName {
        StreamName(category: "audit", id: "witness.\(witness)")
    }

    /// Where each of `witnesses` stands, in one query (each one's latest event on its stream, by the stream's
    /// index).
    /// - Throws: ``StoreError`` from the database.
    public static func states(of witnesses: [String], on connection: Connection) async throws -> [String: State] {
        var states = Dictionary(witnesses.map { ($0, State(version: 0, alarm: nil)) }, uniquingKeysWith: { a, _ in a })
        guard !witnesses.isEmpty else { return states }
        let streams = witnesses.map { self.stream(of: $0).rawValue }
        let rows = try await connection.query(
            """
            SELECT w.name, e.stream_version, e.type, e.event_id, e.reason, e.data->>'tree_size', e.data->>'detail',
                   e.recorded_at
            FROM unnest(\(ArrayLiteral(witnesses))::text[], \(ArrayLiteral(streams))::text[]) AS w(name, stream)
            CROSS JOIN LATERAL (
                SELECT stream_version, type, event_id, reason, data, recorded_at FROM authlog.event_records r
                WHERE r.stream = w.stream ORDER BY r.stream_version DESC LIMIT 1) e
            """
        )
        for row in rows.rows {
            let witness = try row.decode(String.self, at: 0)
            var state = State(version: try row.decode(Int32.self, at: 1), alarm: nil)
            if try row.decode(String.self, at: 2) == EventType.auditWitnessAlarm.rawValue {
                state.alarm = Standing(
                    witness: witness,
                    eventID: try row.decode(UUID.self, at: 3),
                    reason: try row.decode(String?.self, at: 4) ?? "",
                    treeSize: try row.decode(String?.self, at: 5).flatMap { Int64($0) } ?? 0,
                    detail: try row.decode(String?.self, at: 6) ?? "",
                    raisedAt: try row.decode(Timestamp.self, at: 7)
                )
            }
            states[witness] = state
        }
        return states
    }

    /// Every alarm that stands, whatever the configuration names, by witness.
    /// - Throws: ``StoreError`` from the database.
    public static func standing(on connection: Connection) async throws -> [Standing] {
        let rows = try await connection.query(
            """
            SELECT DISTINCT data->>'witness' FROM authlog.event_records
            WHERE type IN ('audit.witness_alarm', 'audit.witness_alarm_cleared') AND data ? 'witness'
            """
        )
        let witnesses = try rows.rows.compactMap { try $0.decode(String?.self, at: 0) }.sorted()
        let states = try await self.states(of: witnesses, on: connection)
        return witnesses.compactMap { states[$0]?.alarm }
    }

    /// Records `alarm` as `audit.witness_alarm` on its witness's stream, expecting the stream at `version` (no
    /// alarm standing). Returns the alarm that stands afterwards: this one, or the one another process recorded
    /// first (then nothing is appended).
    /// - Throws: ``StoreError`` from the database.
    public static func record(
        _ alarm: AuditWitnessAlarm,
        reason: AuditWitnessAlarm.Reason,
        expecting version: Int32,
        into store: PostgresEventStore
    ) async throws -> Standing? {
        let event = try EventEnvelope(alarm, stream: self.stream(of: alarm.witness), reason: reason.rawValue)
        let expected: ExpectedVersion = version == 0 ? .noStream : .exactly(version)
        do {
            _ = try await store.append(AppendCommand(event, expecting: expected))
        } catch is WrongExpectedVersion {
            // Another process recorded first (or an operator cleared meanwhile): what stands is in the log.
        }
        return try await store.pool.withConnection {
            try await self.states(of: [alarm.witness], on: $0)[alarm.witness]?.alarm
        }
    }

    /// Clears `witness`'s standing alarm with `audit.witness_alarm_cleared` by `actor`, expecting the stream's
    /// version read with it; returns the alarm cleared, nil when none stood (nothing is appended).
    /// - Throws: ``StoreError`` from the database; `WrongExpectedVersion` when the stream moved meanwhile.
    public static func clear(
        witness: String,
        actor: String,
        note: String,
        requestID: String? = nil,
        into store: PostgresEventStore
    ) async throws -> Standing? {
        let state = try await store.pool.withConnection { try await self.states(of: [witness], on: $0)[witness] }
        guard let state, let alarm = state.alarm else { return nil }
        let event = try EventEnvelope(
            AuditWitnessAlarmCleared(
                witness: witness,
                actor: actor,
                alarmEventID: alarm.eventID.lowercased,
                note: note
            ),
            stream: self.stream(of: witness),
            requestID: requestID
        )
        _ = try await store.append(AppendCommand(event, expecting: .exactly(state.version)))
        return alarm
    }
}

extension WitnessAlarms {
    /// Keeps a witness alarm's evidence outside the database: `<directory>/witness-alarms/<witness>-<size>-<time>`
    /// `.request` (the `add-checkpoint` body sent: the old size, the proof and the note) and `.answer` (the
    /// witness's status, content type and body), each fsynced and never written over. Returns the request file's
    /// path.
    /// - Throws: ``StoreError`` `.server` when a file cannot be written.
    public static func keepEvidence(
        request: [UInt8],
        answer: [UInt8],
        witness: String,
        treeSize: Int64,
        in directory: String
    ) throws -> String {
        let name = String(witness.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
        let stem = "\(directory)/witness-alarms/\(name)-\(treeSize)-\(Int64(Date().timeIntervalSince1970))"
        _ = try NoteFiles.createOnce("\(stem).request", bytes: request)
        _ = try NoteFiles.createOnce("\(stem).answer", bytes: answer)
        return "\(stem).request"
    }
}
