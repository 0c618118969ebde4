import AuthlogCore
import AuthlogPostgres
import Foundation

/// A projection change with the user and session of the event that caused it, which the planner uses
/// to tell which changes touch the same rows.
struct ScopedChange {
    let change: ProjectionChange
    let userID: UUID?
    let sessionID: UUID?

    /// The changes one event causes, in order; `decoded` is its payload when already decoded.
    static func changes(of event: EventEnvelope, decoded: (any EventPayload)? = nil) throws -> [ScopedChange] {
        try ProjectionReducer.changes(for: event, decoded: decoded).map {
            ScopedChange(change: $0, userID: event.userID, sessionID: event.sessionID)
        }
    }

    /// The changes of every event, in order.
    static func changes(of events: [RecordedEvent]) throws -> [ScopedChange] {
        try events.flatMap { try Self.changes(of: $0.envelope) }
    }

    /// Keys of the rows this change may touch, within its table. Every session, refresh token and identity
    /// row belongs to one user, so a user-wide change (logout of all sessions, consent withdrawal, deletion)
    /// shares the user key with every change of that user's rows.
    var conflictKeys: [String] {
        var keys = self.change.rowKeys
        if let userID = self.userID ?? self.change.userID { keys.append("u" + userID.lowercased) }
        return keys
    }
}

/// Applies ``ProjectionChange``s to the projection tables of one schema (`authlog`, or `pg_temp` for a rebuild).
///
/// The changes are planned into layers so that a batch needs few statements whatever its mix: a change
/// goes one layer after the last earlier change of its table that may touch the same rows (same user,
/// session, token, family or identity). Changes in one layer touch disjoint rows, so they commute, and each
/// layer's changes of one kind become one multi-row statement. The result equals applying the changes one
/// by one in event order, so the live path and `authlog rebuild` produce the same rows whatever the batch
/// boundaries were. Sign-in counts are summed into one upsert. Removing all identities of a user is a
/// barrier for its table: which identity rows it removes depends on everything before it.
struct ProjectionWriter {
    /// The schema whose tables are written.
    let schema: String
    /// Whether the statements on `authlog.sessions` also count the sessions they start and end for the report
    /// roll-ups (``PendingReportCounts/Sessions``): the live writer's, not a rebuild's, which counts everything
    /// again from the rebuilt tables (`authlog.recount_reports`).
    var countingReports = false

    /// The writers' projection statements (``BatchWriter``): the live tables, counted for the reports.
    static let live = ProjectionWriter(schema: "authlog", countingReports: true)

    func apply(_ changes: [ScopedChange], countingSignins: Bool = true, on connection: isolated Connection) throws {
        for statement in self.statements(for: changes, countingSignins: countingSignins) {
            try connection.query(statement)
        }
    }

    /// The statements that apply `changes`, in the order they must run. `countingSignins: false` leaves out
    /// `signins_daily`: the writers leave those counters to the sealer (``SealStep``), since every batch of
    /// sign-ins would otherwise wait on the same few counter rows held until the previous batch commits.
    func statements(for changes: [ScopedChange], countingSignins: Bool = true) -> [SQLQuery] {
        var statements: [SQLQuery] = []
        let counts = changes.map(\.change).filter { $0.table == .signinsDaily }
        if countingSignins && !counts.isEmpty { statements.append(self.countSignins(counts)) }
        for layer in Self.layers(of: changes.filter { $0.change.table != .signinsDaily }) {
            var kinds: [ProjectionChange.Kind] = []
            var byKind: [ProjectionChange.Kind: [ProjectionChange]] = [:]
            for change in layer {
                if byKind[change.kind] == nil { kinds.append(change.kind) }
                byKind[change.kind, default: []].append(change)
            }
            for kind in kinds {
                guard let group = byKind[kind] else { continue }
                if group.first?.isUserWide == true {
                    statements += group.map { self.statement(for: [$0]) }
                } else {
                    for start in stride(from: 0, to: group.count, by: 1000) {
                        statements.append(self.statement(for: Array(group[start..<min(start + 1000, group.count)])))
                    }
                }
            }
        }
        return statements
    }

    /// Plans changes into layers of pairwise commuting changes (see the type's documentation).
    static func layers(of changes: [ScopedChange]) -> [[ProjectionChange]] {
        var layers: [[ProjectionChange]] = []
        var lastLayerOfKey: [String: Int] = [:]
        var highestLayerOfTable: [ProjectionTable: Int] = [:]
        var barrierOfTable: [ProjectionTable: Int] = [:]
        for scoped in changes {
            let table = scoped.change.table
            let keys = scoped.conflictKeys.map { table.rawValue + "\u{1}" + $0 }
            let floor = (barrierOfTable[table] ?? -1) + 1
            var layer = max(floor, (keys.compactMap { lastLayerOfKey[$0] }.max() ?? -1) + 1)
            if scoped.change.isTableBarrier {
                layer = max(floor, (highestLayerOfTable[table] ?? -1) + 1)
                barrierOfTable[table] = layer
            }
            highestLayerOfTable[table] = max(highestLayerOfTable[table] ?? -1, layer)
            for key in keys { lastLayerOfKey[key] = layer }
            while layers.count <= layer { layers.append([]) }
            layers[layer].append(scoped.change)
        }
        return layers
    }

    private func countSignins(_ changes: [ProjectionChange]) -> SQLQuery {
        var counts: [String: (day: String, provider: String, outcome: String, count: Int64)] = [:]
        var order: [String] = []
        for case .countSignin(let day, let provider, let outcome) in changes {
            let dayText = Timestamp(microsecondsSinceEpoch: day * 86_400_000_000).dayString
            let key = "\(dayText)|\(provider)|\(outcome.rawValue)"
            if counts[key] == nil { order.append(key) }
            counts[key, default: (dayText, provider, outcome.rawValue, 0)].count += 1
        }
        var query = SQLQuery(
            unsafeSQL: "INSERT INTO \(self.schema).signins_daily (day, provider, outcome, signins) VALUES "
        )
        for (index, key) in order.enumerated() {
            guard let entry = counts[key] else { continue }
            let values = [
                query.bind(entry.day), query.bind(entry.provider), query.bind(entry.outcome), query.bind(entry.count),
            ]
            query.append(unescaped: (index == 0 ? "(" : ",(") + values.joined(separator: ",") + ")")
        }
        query.append(
            unescaped:
                " ON CONFLICT (day, provider, outcome) DO UPDATE SET signins = signins_daily.signins + excluded.signins"
        )
        return query
    }

    private func statement(for run: [ProjectionChange]) -> SQLQuery {
        guard let first = run.first else { return "SELECT 1" }
        switch first {
        case .insertUser:
            return self.insertRows(
                "users",
                "user_id uuid, created_at timestamptz, first_provider text, status text",
                run,
                suffix: " ON CONFLICT DO NOTHING"
            ) { change in
                guard case .insertUser(let userID, let createdAt, let provider) = change else { return [] }
                return [userID.sqlText, createdAt.sqlText, provider, "active"]
            }
        case .linkIdentity:
            return self.insertRows(
                "identities",
                "provider text, subject_hash text, user_id uuid, linked_at timestamptz",
                run,
                suffix: " ON CONFLICT DO NOTHING"
            ) { change in
                guard case .linkIdentity(let provider, let subjectHash, let userID, let at) = change else { return [] }
                return [provider, subjectHash, userID.sqlText, at.sqlText]
            }
        case .startSession:
            return self.insertRows(
                "sessions",
                """
                session_id uuid, user_id uuid, provider text, client_id text, kind text, started_at timestamptz,
                    last_seen_at timestamptz, authenticated_at timestamptz, state text
                """,
                run,
                suffix: " ON CONFLICT DO NOTHING",
                counting: .started
            ) { change in
                guard
                    case .startSession(let sessionID, let userID, let provider, let clientID, let kind, let at) = change
                else { return [] }
                return [
                    sessionID.sqlText, userID.sqlText, provider, clientID?.sqlText,
                    kind.rawValue, at.sqlText, at.sqlText, at.sqlText,
                    SessionState.active.rawValue,
                ]
            }
        case .issueRefreshToken:
            return self.insertRows(
                "refresh_tokens",
                """
                token_hash bytea, token_id uuid, family_id uuid, parent_id uuid, session_id uuid, user_id uuid,
                    provider text, kind text, state text, issued_at timestamptz, expires_at timestamptz,
                    dpop_jkt text
                """,
                run,
                suffix: " ON CONFLICT DO NOTHING"
            ) { change in
                guard case .issueRefreshToken(let row) = change else { return [] }
                return [
                    ByteaValue(row.tokenHash).sqlText, row.tokenID.sqlText, row.familyID.sqlText,
                    row.parentID?.sqlText, row.sessionID.sqlText, row.userID.sqlText,
                    row.provider, row.kind.rawValue, "active",
                    row.issuedAt.sqlText, row.expiresAt.sqlText, row.dpopJKT,
                ]
            }
        case .countIdentityFailure, .clearIdentityFailures, .lockIdentity, .unlockIdentity:
            return self.lockoutStatement(for: run)
        default:
            return self.updateStatement(for: run)
        }
    }

    /// `INSERT INTO <table> (columns) SELECT * FROM unnest(…)` with one array parameter per column: one
    /// statement text per table whatever the run's length. With `counting`, the same statement counts the rows it
    /// inserted (``counted(_:_:)``).
    private func insertRows(
        _ table: String,
        _ columns: String,
        _ run: [ProjectionChange],
        suffix: String,
        counting: PendingReportCounts.Sessions? = nil,
        values: (ProjectionChange) -> [String?]
    ) -> SQLQuery {
        let columns = UnnestColumns(columns)
        let names = columns.names.joined(separator: ", ")
        return self.counted(counting) { query in
            query.append(unescaped: "INSERT INTO \(self.schema).\(table) (\(names)) SELECT * FROM ")
            columns.appendUnnest(run.map(values), to: &query)
            query.append(unescaped: suffix)
        }
    }

    /// The statement `body` writes; when this writer counts for the reports and `counting` says what, wrapped as
    /// `WITH changed AS (statement RETURNING …) INSERT INTO authlog.report_pending …`, so that the rows it
    /// inserted or changed are counted in the same statement (no trigger on the write path).
    func counted(_ counting: PendingReportCounts.Sessions?, _ body: (inout SQLQuery) -> Void) -> SQLQuery {
        guard self.countingReports, let counting else {
            var query = SQLQuery(unsafeSQL: "")
            body(&query)
            return query
        }
        var query = SQLQuery(unsafeSQL: "WITH changed AS (")
        body(&query)
        query.append(unescaped: "\nRETURNING \(counting.returning))\n\(counting.count)")
        return query
    }
}
