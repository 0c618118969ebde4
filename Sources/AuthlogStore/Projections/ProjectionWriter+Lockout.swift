import AuthlogCore
import AuthlogPostgres

extension ProjectionWriter {
    /// The statement for a run of `identity_lockouts` changes of one kind, each on a different identity
    /// (the planner puts changes of one identity in different layers, so no statement touches a row twice).
    func lockoutStatement(for run: [ProjectionChange]) -> SQLQuery {
        switch run.first {
        case .countIdentityFailure:
            // The newest IdentityLockout.keptFailures (100) failures are kept: the old array and the new one
            // make at most 101, and the slice drops the oldest.
            return self.insertLockoutRows(
                "provider text, subject_hash text, at timestamptz",
                into: "(provider, subject_hash, recent_failures)",
                selecting: "provider, subject_hash, ARRAY[at]",
                run,
                onConflict: """
                    recent_failures = (t.recent_failures || excluded.recent_failures)[
                        greatest(1, cardinality(t.recent_failures) + cardinality(excluded.recent_failures) - 99):]
                    """
            ) { change in
                guard case .countIdentityFailure(let provider, let subjectHash, let at) = change else { return [] }
                return [provider, subjectHash, at.sqlText]
            }
        case .lockIdentity:
            return self.insertLockoutRows(
                "provider text, subject_hash text, level integer, locked_at timestamptz, locked_until timestamptz",
                into: "(provider, subject_hash, level, locked_at, locked_until)",
                selecting: "*",
                run,
                onConflict: """
                    level = excluded.level, locked_at = excluded.locked_at, locked_until = excluded.locked_until,
                        unlocked_at = NULL
                    """
            ) { change in
                guard case .lockIdentity(let provider, let subjectHash, let level, let at, let until) = change else {
                    return []
                }
                return [provider, subjectHash, level.sqlText, at.sqlText, until.sqlText]
            }
        case .clearIdentityFailures:
            return self.clearStatement(for: run)
        default:
            return self.unlockStatement(for: run)
        }
    }

    /// Forgets the counted failures of identities that signed in; a row without any is not touched, so the
    /// common sign-in changes nothing.
    private func clearStatement(for run: [ProjectionChange]) -> SQLQuery {
        var query = SQLQuery(
            unsafeSQL: "UPDATE \(self.schema).identity_lockouts AS t SET recent_failures = '{}' FROM "
        )
        UnnestColumns("provider text, subject_hash text").appendUnnest(
            run.map { change in
                guard case .clearIdentityFailures(let provider, let subjectHash) = change else { return [] }
                return [provider, subjectHash]
            },
            to: &query
        )
        query.append(
            unescaped: """
                 WHERE t.provider = v.provider AND t.subject_hash = v.subject_hash AND cardinality(t.recent_failures) > 0
                """
        )
        return query
    }

    /// Lifts recorded locks; an operator's unlock also forgets the counted failures and the back-off.
    private func unlockStatement(for run: [ProjectionChange]) -> SQLQuery {
        var query = SQLQuery(
            unsafeSQL: """
                UPDATE \(self.schema).identity_lockouts AS t SET unlocked_at = v.at,
                    recent_failures = CASE WHEN v.by_operator THEN '{}' ELSE t.recent_failures END,
                    level = CASE WHEN v.by_operator THEN 0 ELSE t.level END,
                    locked_at = CASE WHEN v.by_operator THEN NULL ELSE t.locked_at END,
                    locked_until = CASE WHEN v.by_operator THEN NULL ELSE t.locked_until END
                FROM 
                """
        )
        UnnestColumns("provider text, subject_hash text, by_operator boolean, at timestamptz").appendUnnest(
            run.map { change in
                guard case .unlockIdentity(let provider, let subjectHash, let byOperator, let at) = change else {
                    return []
                }
                return [provider, subjectHash, byOperator.sqlText, at.sqlText]
            },
            to: &query
        )
        query.append(
            unescaped: """
                 WHERE t.provider = v.provider AND t.subject_hash = v.subject_hash AND t.locked_at IS NOT NULL
                    AND t.unlocked_at IS NULL
                """
        )
        return query
    }

    private func insertLockoutRows(
        _ columns: String,
        into target: String,
        selecting: String,
        _ run: [ProjectionChange],
        onConflict update: String,
        values: (ProjectionChange) -> [String?]
    ) -> SQLQuery {
        var query = SQLQuery(
            unsafeSQL: "INSERT INTO \(self.schema).identity_lockouts AS t \(target) SELECT \(selecting) FROM "
        )
        UnnestColumns(columns).appendUnnest(run.map(values), to: &query)
        query.append(unescaped: " ON CONFLICT (provider, subject_hash) DO UPDATE SET " + update)
        return query
    }
}
