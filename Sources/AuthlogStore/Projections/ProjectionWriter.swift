import AuthlogCore
import Foundation

/// Applies ``ProjectionChange``s to the projection tables of one schema (`authlog`, or `pg_temp` for a rebuild).
///
/// Changes to different tables commute, so they are grouped by table, keeping their order within a table.
/// Consecutive changes of the same kind become one multi-row statement; a run is cut where a key repeats,
/// so every statement has the effect of applying its changes one by one. The live path and
/// `authlog rebuild` therefore produce the same rows whatever the batch boundaries were.
struct ProjectionWriter {
    /// The schema whose tables are written.
    let schema: String

    func apply(_ changes: [ProjectionChange], on connection: isolated Connection) throws {
        var byTable: [ProjectionTable: [ProjectionChange]] = [:]
        for change in changes { byTable[change.table, default: []].append(change) }
        for table in ProjectionTable.allCases {
            guard let tableChanges = byTable[table] else { continue }
            if table == .signinsDaily {
                try self.countSignins(tableChanges, on: connection)
                continue
            }
            for run in Self.runs(of: tableChanges) {
                try connection.query(self.statement(for: run))
            }
        }
    }

    /// Splits changes into runs of one kind with no repeated key.
    static func runs(of changes: [ProjectionChange]) -> [[ProjectionChange]] {
        var runs: [[ProjectionChange]] = []
        var current: [ProjectionChange] = []
        var keys = Set<String>()
        for change in changes {
            let key = change.runKey
            let sameKind = current.first?.kind == change.kind
            let repeated = key.map { !$0.isEmpty && keys.contains($0) } ?? false
            if !current.isEmpty && (!sameKind || repeated || key == nil || current.count >= 1000) {
                runs.append(current)
                current = []
                keys = []
            }
            current.append(change)
            if let key {
                if !key.isEmpty { keys.insert(key) }
            } else {
                runs.append(current)
                current = []
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }

    private func countSignins(_ changes: [ProjectionChange], on connection: isolated Connection) throws {
        var counts: [String: (day: String, provider: String, outcome: String, count: Int64)] = [:]
        var order: [String] = []
        for case .countSignin(let day, let provider, let outcome) in changes {
            let dayText = Timestamp(microsecondsSinceEpoch: day * 86_400_000_000).dayString
            let key = "\(dayText)|\(provider)|\(outcome.rawValue)"
            if counts[key] == nil { order.append(key) }
            counts[key, default: (dayText, provider, outcome.rawValue, 0)].count += 1
        }
        var query = SQLQuery(unsafeSQL: "INSERT INTO \(self.schema).signins_daily (day, provider, outcome, signins) VALUES ")
        for (index, key) in order.enumerated() {
            guard let entry = counts[key] else { continue }
            let values = [query.bind(entry.day), query.bind(entry.provider), query.bind(entry.outcome), query.bind(entry.count)]
            query.append(unescaped: (index == 0 ? "(" : ",(") + values.joined(separator: ",") + ")")
        }
        query.append(
            unescaped: " ON CONFLICT (day, provider, outcome) DO UPDATE SET signins = signins_daily.signins + excluded.signins")
        try connection.query(query)
    }

    private func statement(for run: [ProjectionChange]) -> SQLQuery {
        guard let first = run.first else { return "SELECT 1" }
        switch first {
        case .insertUser:
            return self.insertRows(
                "users (user_id, created_at, first_provider, status)", run, suffix: " ON CONFLICT DO NOTHING"
            ) { change, query in
                guard case .insertUser(let userID, let createdAt, let provider) = change else { return [] }
                return [query.bind(userID), query.bind(createdAt), query.bind(provider), query.bind("active")]
            }
        case .linkIdentity:
            return self.insertRows(
                "identities (provider, subject_hash, user_id, linked_at)", run, suffix: " ON CONFLICT DO NOTHING"
            ) { change, query in
                guard case .linkIdentity(let provider, let subjectHash, let userID, let at) = change else { return [] }
                return [query.bind(provider), query.bind(subjectHash), query.bind(userID), query.bind(at)]
            }
        case .startSession:
            return self.insertRows(
                "sessions (session_id, user_id, provider, client_id, started_at, last_seen_at, state)", run,
                suffix: " ON CONFLICT DO NOTHING"
            ) { change, query in
                guard case .startSession(let sessionID, let userID, let provider, let clientID, let at) = change
                else { return [] }
                return [
                    query.bind(sessionID), query.bind(userID), query.bind(provider), query.bind(clientID),
                    query.bind(at), query.bind(at), query.bind(SessionState.active.rawValue),
                ]
            }
        case .issueRefreshToken:
            return self.insertRows(
                """
                refresh_tokens (token_hash, token_id, family_id, parent_id, session_id, user_id, provider, kind,
                    state, issued_at, expires_at)
                """, run, suffix: " ON CONFLICT DO NOTHING"
            ) { change, query in
                guard case .issueRefreshToken(let row) = change else { return [] }
                return [
                    query.bind(ByteaValue(row.tokenHash)), query.bind(row.tokenID), query.bind(row.familyID),
                    query.bind(row.parentID), query.bind(row.sessionID), query.bind(row.userID),
                    query.bind(row.provider), query.bind(row.kind.rawValue), query.bind("active"),
                    query.bind(row.issuedAt), query.bind(row.expiresAt),
                ]
            }
        default:
            return self.updateStatement(for: run)
        }
    }

    private func insertRows(
        _ target: String, _ run: [ProjectionChange], suffix: String,
        values: (ProjectionChange, inout SQLQuery) -> [String]
    ) -> SQLQuery {
        var query = SQLQuery(unsafeSQL: "INSERT INTO \(self.schema).\(target) VALUES ")
        for (index, change) in run.enumerated() {
            let placeholders = values(change, &query)
            query.append(unescaped: (index == 0 ? "(" : ",(") + placeholders.joined(separator: ",") + ")")
        }
        query.append(unescaped: suffix)
        return query
    }
}
