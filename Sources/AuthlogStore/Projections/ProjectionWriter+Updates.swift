import AuthlogCore
import AuthlogPostgres
import Foundation

extension ProjectionWriter {
    /// The statement for a run of state changes: keyed ones as one `UPDATE … FROM unnest(…)`,
    /// user-wide ones (always alone in their run) as one plain statement.
    func updateStatement(for run: [ProjectionChange]) -> SQLQuery {
        guard let first = run.first else { return "SELECT 1" }
        switch first {
        case .deleteUser:
            return self.keyedUpdate(
                "UPDATE \(self.schema).users AS t SET status = 'deleted', deleted_at = v.at",
                columns: "user_id uuid, at timestamptz",
                match: "t.user_id = v.user_id AND t.status = 'active'",
                run
            ) { change in
                guard case .deleteUser(let userID, let at) = change else { return [] }
                return [userID.sqlText, at.sqlText]
            }
        case .unlinkIdentity:
            return self.keyedUpdate(
                "DELETE FROM \(self.schema).identities AS t USING",
                columns: "provider text, subject_hash text",
                match: "t.provider = v.provider AND t.subject_hash = v.subject_hash",
                run,
                usingForm: true
            ) { change in
                guard case .unlinkIdentity(let provider, let subjectHash) = change else { return [] }
                return [provider, subjectHash]
            }
        case .touchSession:
            return self.keyedUpdate(
                "UPDATE \(self.schema).sessions AS t SET last_seen_at = v.at",
                columns: "session_id uuid, at timestamptz",
                match: "t.session_id = v.session_id AND t.state = 'active' AND t.last_seen_at < v.at",
                run
            ) { change in
                guard case .touchSession(let sessionID, let at) = change else { return [] }
                return [sessionID.sqlText, at.sqlText]
            }
        case .reauthenticateSession:
            return self.keyedUpdate(
                "UPDATE \(self.schema).sessions AS t SET authenticated_at = v.at",
                columns: "session_id uuid, at timestamptz",
                match: "t.session_id = v.session_id AND t.state = 'active' AND t.authenticated_at < v.at",
                run
            ) { change in
                guard case .reauthenticateSession(let sessionID, let at) = change else { return [] }
                return [sessionID.sqlText, at.sqlText]
            }
        case .endSession:
            return self.keyedUpdate(
                "UPDATE \(self.schema).sessions AS t SET state = v.state, end_reason = v.reason, ended_at = v.at",
                columns: "session_id uuid, state text, reason text, at timestamptz",
                match: "t.session_id = v.session_id AND t.state = 'active'",
                run,
                counting: .ended
            ) { change in
                guard case .endSession(let sessionID, let state, let reason, let at) = change else { return [] }
                return [sessionID.sqlText, state.rawValue, reason, at.sqlText]
            }
        case .rotateRefreshToken:
            return self.keyedUpdate(
                "UPDATE \(self.schema).refresh_tokens AS t SET state = 'rotated', rotated_at = v.at",
                columns: "token_id uuid, at timestamptz",
                match: "t.token_id = v.token_id AND t.state = 'active'",
                run
            ) { change in
                guard case .rotateRefreshToken(let tokenID, _, let at) = change else { return [] }
                return [tokenID.sqlText, at.sqlText]
            }
        case .revokeFamily, .revokeToken, .revokeSessionTokens:
            return self.revokeTokens(run)
        case .sealSuccessor:
            return self.sealSuccessors(run)
        case .releaseUserIdentities(let userID, let at):
            return """
                UPDATE \(unescaped: self.schema).identities SET released_at = \(at)
                WHERE user_id = \(userID) AND released_at IS NULL
                """
        case .endUserSessions(let userID, let provider, let state, let reason, let at):
            return self.counted(.ended) { query in
                let values = [
                    query.bind(state.rawValue), query.bind(reason), query.bind(at), query.bind(userID),
                    query.bind(provider), query.bind(provider),
                ]
                query.append(
                    unescaped: """
                        UPDATE \(self.schema).sessions AS t SET state = \(values[0]), end_reason = \(values[1]), \
                        ended_at = \(values[2])
                        WHERE user_id = \(values[3]) AND state = 'active'
                          AND (\(values[4])::text IS NULL OR provider = \(values[5]))
                        """
                )
            }
        case .revokeUserTokens(let userID, let provider, let reason, let at):
            return """
                UPDATE \(unescaped: self.schema).refresh_tokens SET state = 'revoked', revoked_at = \(at),
                    revoke_reason = \(reason), successor_sealed = NULL
                WHERE user_id = \(userID) AND state <> 'revoked' AND (\(provider)::text IS NULL OR provider = \(provider))
                """
        case .countIdentityFailure, .clearIdentityFailures, .lockIdentity, .unlockIdentity:
            return self.lockoutStatement(for: run)
        case .insertUser, .linkIdentity, .startSession, .issueRefreshToken, .countSignin:
            preconditionFailure("inserts are not state changes")
        }
    }

    private func revokeTokens(_ run: [ProjectionChange]) -> SQLQuery {
        let keyColumn: String
        switch run.first {
        case .revokeFamily: keyColumn = "family_id"
        case .revokeSessionTokens: keyColumn = "session_id"
        default: keyColumn = "token_id"
        }
        return self.keyedUpdate(
            """
            UPDATE \(self.schema).refresh_tokens AS t SET state = 'revoked', revoked_at = v.at, revoke_reason = v.reason,
                successor_sealed = NULL
            """,
            columns: "key uuid, reason text, at timestamptz",
            match: "t.\(keyColumn) = v.key AND t.state <> 'revoked'",
            run
        ) { change in
            switch change {
            case .revokeFamily(let key, _, let reason, let at), .revokeToken(let key, _, let reason, let at),
                .revokeSessionTokens(let key, let reason, let at):
                return [key.sqlText, reason.sqlText, at.sqlText]
            default:
                return []
            }
        }
    }

    /// Keeps each rotated token's sealed answer and drops the boxes of the other tokens of its family (an
    /// older rotation's answer is never given again once a newer one exists). The token is found by its key and
    /// the boxes by `refresh_tokens_sealed_successors` (migration 32), which holds only tokens with a box, so
    /// the statement costs the same for a family of one token as for one of thousands.
    private func sealSuccessors(_ run: [ProjectionChange]) -> SQLQuery {
        self.keyedUpdate(
            """
            UPDATE \(self.schema).refresh_tokens AS t
                SET successor_sealed = CASE WHEN t.token_id = v.token_id THEN v.sealed END
            """,
            columns: "token_id uuid, family_id uuid, sealed bytea",
            match: """
                (t.token_id = v.token_id AND t.state = 'rotated')
                    OR (t.family_id = v.family_id AND t.successor_sealed IS NOT NULL AND t.token_id <> v.token_id)
                """,
            run
        ) { change in
            guard case .sealSuccessor(let successor) = change else { return [] }
            return [
                successor.tokenID.sqlText, successor.familyID.sqlText, ByteaValue(successor.sealed).sqlText,
            ]
        }
    }

    /// `<head> FROM unnest($1::type[], …) AS v(columns) WHERE <match>` (for DELETE, `<head> unnest(…) …`):
    /// one statement text per kind whatever the run's length, so each is prepared once per connection, with
    /// every key's value in one array parameter per column.
    private func keyedUpdate(
        _ head: String,
        columns: String,
        match: String,
        _ run: [ProjectionChange],
        usingForm: Bool = false,
        counting: PendingReportCounts.Sessions? = nil,
        values: (ProjectionChange) -> [String?]
    ) -> SQLQuery {
        self.counted(counting) { query in
            query.append(unescaped: head + (usingForm ? " " : " FROM "))
            UnnestColumns(columns).appendUnnest(run.map(values), to: &query)
            query.append(unescaped: " WHERE \(match)")
        }
    }
}

extension ProjectionChange {
    /// The case of a change without its values, for grouping runs of one statement.
    enum Kind: Hashable {
        case insertUser
        case deleteUser
        case linkIdentity
        case unlinkIdentity
        case releaseUserIdentities
        case startSession
        case touchSession
        case reauthenticateSession
        case endSession
        case endUserSessions
        case issueRefreshToken
        case rotateRefreshToken
        case revokeFamily
        case revokeToken
        case revokeSessionTokens
        case revokeUserTokens
        case sealSuccessor
        case countSignin
        case countIdentityFailure
        case clearIdentityFailures
        case lockIdentity
        case unlockIdentity
    }

    /// The case, for grouping runs.
    var kind: Kind {
        switch self {
        case .insertUser: return .insertUser
        case .deleteUser: return .deleteUser
        case .linkIdentity: return .linkIdentity
        case .unlinkIdentity: return .unlinkIdentity
        case .releaseUserIdentities: return .releaseUserIdentities
        case .startSession: return .startSession
        case .touchSession: return .touchSession
        case .reauthenticateSession: return .reauthenticateSession
        case .endSession: return .endSession
        case .endUserSessions: return .endUserSessions
        case .issueRefreshToken: return .issueRefreshToken
        case .rotateRefreshToken: return .rotateRefreshToken
        case .revokeFamily: return .revokeFamily
        case .revokeToken: return .revokeToken
        case .revokeSessionTokens: return .revokeSessionTokens
        case .revokeUserTokens: return .revokeUserTokens
        case .sealSuccessor: return .sealSuccessor
        case .countSignin: return .countSignin
        case .countIdentityFailure: return .countIdentityFailure
        case .clearIdentityFailures: return .clearIdentityFailures
        case .lockIdentity: return .lockIdentity
        case .unlockIdentity: return .unlockIdentity
        }
    }

    /// Keys of the rows this change touches within its table, apart from the user (see ``ScopedChange``).
    var rowKeys: [String] {
        switch self {
        case .insertUser, .deleteUser, .releaseUserIdentities, .endUserSessions, .revokeUserTokens, .countSignin:
            return []
        case .linkIdentity(let provider, let subjectHash, _, _), .unlinkIdentity(let provider, let subjectHash):
            return ["i" + provider + "\u{0}" + subjectHash]
        case .startSession(let sessionID, _, _, _, _, _), .touchSession(let sessionID, _),
            .reauthenticateSession(let sessionID, _),
            .endSession(let sessionID, _, _, _), .revokeSessionTokens(let sessionID, _, _):
            return ["s" + sessionID.lowercased]
        case .issueRefreshToken(let row):
            return ["s" + row.sessionID.lowercased, "t" + row.tokenID.lowercased, "f" + row.familyID.lowercased]
        case .rotateRefreshToken(let tokenID, let sessionID, _), .revokeToken(let tokenID, let sessionID, _, _):
            return ["s" + sessionID.lowercased, "t" + tokenID.lowercased]
        case .revokeFamily(let familyID, let sessionID, _, _):
            return ["s" + sessionID.lowercased, "f" + familyID.lowercased]
        case .sealSuccessor(let successor):
            return [
                "s" + successor.sessionID.lowercased, "t" + successor.tokenID.lowercased,
                "f" + successor.familyID.lowercased,
            ]
        case .countIdentityFailure(let provider, let subjectHash, _),
            .clearIdentityFailures(let provider, let subjectHash),
            .lockIdentity(let provider, let subjectHash, _, _, _),
            .unlockIdentity(let provider, let subjectHash, _, _):
            return ["l" + provider + "\u{0}" + subjectHash]
        }
    }

    /// The user a change names itself, if any.
    var userID: UUID? {
        switch self {
        case .insertUser(let userID, _, _), .deleteUser(let userID, _), .releaseUserIdentities(let userID, _),
            .endUserSessions(let userID, _, _, _, _), .revokeUserTokens(let userID, _, _, _),
            .linkIdentity(_, _, let userID, _), .startSession(_, let userID, _, _, _, _):
            return userID
        case .issueRefreshToken(let row): return row.userID
        default: return nil
        }
    }

    /// Whether the change must follow every earlier change of its table: the identity rows a user-wide
    /// release marks may have been linked under another user's key.
    var isTableBarrier: Bool {
        if case .releaseUserIdentities = self { return true }
        return false
    }

    /// Whether the change reaches every row of a user (one statement each).
    var isUserWide: Bool {
        switch self {
        case .releaseUserIdentities, .endUserSessions, .revokeUserTokens: return true
        default: return false
        }
    }
}
