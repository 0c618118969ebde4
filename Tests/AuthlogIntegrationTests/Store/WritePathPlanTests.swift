import AuthlogCore
import AuthlogPostgres
import AuthlogTesting
import Foundation
import Testing

@testable import AuthlogStore

/// The writer's statements keep the plans the write path was measured with (issue 26): every projection
/// statement probes its key's index, on a fresh un-analyzed database, on one with 100,000 active sessions and
/// on one whose statistics were taken while it was empty; and the batch lookup is planned once per connection,
/// not on every call.
@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct WritePathPlanTests {
    /// One projection change and the index its statement must probe.
    struct Probe: CustomTestStringConvertible {
        let change: ProjectionChange
        let index: String?
        var testDescription: String { "\(self.change.kind)" }
    }

    static let at = Timestamp(microsecondsSinceEpoch: 1_795_000_000_000_000)
    static let probes: [Probe] = {
        let id = UUID()
        let successor = SealedSuccessor(tokenID: id, familyID: UUID(), sessionID: UUID(), sealed: [1, 2, 3])
        let token = RefreshTokenRow(
            tokenHash: [UInt8](repeating: 7, count: 32),
            tokenID: UUID(),
            familyID: UUID(),
            parentID: nil,
            sessionID: UUID(),
            userID: UUID(),
            provider: "apple",
            kind: .rememberMe,
            issuedAt: at,
            expiresAt: at.adding(seconds: 3600)
        )
        return [
            Probe(change: .touchSession(sessionID: id, at: at), index: "sessions_pkey"),
            Probe(change: .reauthenticateSession(sessionID: id, at: at), index: "sessions_pkey"),
            Probe(
                change: .endSession(sessionID: id, state: .loggedOut, reason: "logout", at: at),
                index: "sessions_pkey"
            ),
            Probe(
                change: .endUserSessions(userID: id, provider: nil, state: .revoked, reason: "deleted", at: at),
                index: "sessions_user_id"
            ),
            Probe(
                change: .rotateRefreshToken(tokenID: id, sessionID: id, at: at),
                index: "refresh_tokens_token_id_key"
            ),
            Probe(
                change: .revokeToken(tokenID: id, sessionID: id, reason: "logout", at: at),
                index: "refresh_tokens_token_id_key"
            ),
            Probe(
                change: .revokeFamily(familyID: id, sessionID: id, reason: "reuse", at: at),
                index: "refresh_tokens_family_id"
            ),
            Probe(
                change: .revokeSessionTokens(sessionID: id, reason: "logout", at: at),
                index: "refresh_tokens_session_id"
            ),
            Probe(
                change: .revokeUserTokens(userID: id, provider: nil, reason: "deleted", at: at),
                index: "refresh_tokens_user_id"
            ),
            Probe(change: .sealSuccessor(successor), index: "refresh_tokens_sealed_successors"),
            Probe(change: .deleteUser(userID: id, at: at), index: "users_pkey"),
            Probe(change: .unlinkIdentity(provider: "apple", subjectHash: "h"), index: "identities_pkey"),
            Probe(change: .releaseUserIdentities(userID: id, at: at), index: "identities_user_id"),
            Probe(change: .clearIdentityFailures(provider: "apple", subjectHash: "h"), index: "identity_lockouts_pkey"),
            Probe(
                change: .unlockIdentity(provider: "apple", subjectHash: "h", byOperator: true, at: at),
                index: "identity_lockouts_pkey"
            ),
            // Inserts probe nothing but their conflict arbiters; they must not scan either.
            Probe(change: .insertUser(userID: id, createdAt: at, provider: "apple"), index: nil),
            Probe(change: .linkIdentity(provider: "apple", subjectHash: "h", userID: id, at: at), index: nil),
            Probe(
                change: .startSession(
                    sessionID: id,
                    userID: id,
                    provider: "apple",
                    clientID: nil,
                    kind: .rememberMe,
                    at: at
                ),
                index: nil
            ),
            Probe(change: .issueRefreshToken(token), index: nil),
            Probe(change: .countIdentityFailure(provider: "apple", subjectHash: "h", at: at), index: nil),
            Probe(
                change: .lockIdentity(
                    provider: "apple",
                    subjectHash: "h",
                    level: 1,
                    at: at,
                    until: at.adding(seconds: 60)
                ),
                index: nil
            ),
        ]
    }()

    /// The database states a plan is made in.
    enum Statistics: String, CaseIterable {
        case fresh = "a fresh, un-analyzed database"
        case large = "100,000 active sessions, analyzed"
        case stale = "100,000 active sessions, analyzed while empty"
    }

    @Test(arguments: Statistics.allCases)
    func everyProjectionStatementProbesItsKey(_ statistics: Statistics) async throws {
        let database = try await TestDatabase.make()
        let connection = try await database.connect()
        if statistics == .stale { try await connection.execute("ANALYZE") }
        if statistics != .fresh { try await Self.fillSessions(on: connection) }
        if statistics == .large { try await connection.execute("ANALYZE") }
        for probe in Self.probes {
            let statements = ProjectionWriter.live
                .statements(for: [ScopedChange(change: probe.change, userID: nil, sessionID: nil)])
            #expect(statements.count == 1, "\(probe.change.kind) is one statement")
            for statement in statements {
                let plan = try await Self.genericPlan(of: statement, on: connection)
                #expect(!plan.contains("Seq Scan"), "\(probe.change.kind) reads a whole table:\n\(plan)")
                #expect(!plan.contains("JIT"), "\(probe.change.kind) would be compiled:\n\(plan)")
                if let index = probe.index {
                    #expect(
                        plan.contains("Index Scan using \(index) on")
                            || plan.contains("Index Cond") && plan.contains(index),
                        "\(probe.change.kind) does not probe \(index):\n\(plan)"
                    )
                }
            }
        }
        let command = try PostgresEventStore.prepare(AppendCommand(events: [failedSignin()]))
        let plan = try await Self.genericPlan(of: BatchWriter.lookup(for: [command]), on: connection)
        #expect(!plan.contains("Seq Scan"), "the batch lookup reads a whole table:\n\(plan)")
        #expect(!plan.contains("JIT"), "the batch lookup would be compiled:\n\(plan)")
        // The rest of the batch: the log head's key and the inserts with their queue rows (a one-row head is
        // read whole; what matters is that nothing is compiled).
        let rows = BatchPlan(commands: [command], streamVersions: [:], knownEvents: [:], recordedAt: .now()).rows
        let inserts = EventRow.writerInserts(rows, authenticator: nil, queueForSealing: true)
        for statement in inserts + ["SELECT event_key_id FROM authlog.log_head"] {
            let plan = try await Self.genericPlan(of: statement, on: connection)
            #expect(!plan.contains("JIT"), "a writer's statement would be compiled:\n\(plan)")
        }
        // A command's DPoP proof: the lookup probes the ledger's key, and its insert is not compiled.
        let proofs = [DPoPProofClaim(proofHash: Array(repeating: 7, count: 32), expiresAt: .now())]
        let proofLookup = try await Self.genericPlan(of: DPoPProofRows.lookup(proofs), on: connection)
        #expect(proofLookup.contains("dpop_proofs_pkey") && !proofLookup.contains("Seq Scan"), "\(proofLookup)")
        for statement in DPoPProofRows.inserts(proofs) {
            let plan = try await Self.genericPlan(of: statement, on: connection)
            #expect(!plan.contains("JIT"), "a writer's statement would be compiled:\n\(plan)")
        }
        #expect(plan.contains("Index Cond: (event_id = i.id)"), "the lookup probes event ids by key:\n\(plan)")
        #expect(
            plan.contains("Index Only Scan Backward using event_records_") && plan.contains("Index Cond: ((stream = "),
            "the lookup finds each stream's version at the end of its key:\n\(plan)"
        )
    }

    /// The report roll-ups are counted by the writer's own statements (migration 28): a trigger that fills a
    /// transition table, or any trigger that runs after the writer's inserts and updates (such as the counting
    /// triggers it replaced), would put that fixed cost back on every batch.
    @Test func noTriggerRunsAfterTheWritersStatements() async throws {
        let database = try await TestDatabase.make()
        let rows = try await database.connect().query(
            """
            SELECT c.relname || '.' || t.tgname
            FROM pg_trigger t
            JOIN pg_class c ON c.oid = t.tgrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'authlog' AND NOT t.tgisinternal
              AND (t.tgnewtable IS NOT NULL OR t.tgoldtable IS NOT NULL
                   OR (t.tgtype & 2 = 0 AND t.tgtype & 64 = 0 AND t.tgtype & (4 | 16) <> 0))
            ORDER BY 1
            """
        ).rows
        let triggers = try rows.map { try $0.decode(String.self, at: 0) }
        #expect(triggers.isEmpty, "triggers after INSERT or UPDATE, or with transition tables: \(triggers)")
    }

    @Test func theLookupIsPlannedOncePerConnectionNotPerCall() async throws {
        let database = try await TestDatabase.make()
        let connection = try await database.connect()
        for call in 0..<12 {
            let command = try PostgresEventStore.prepare(
                AppendCommand(events: [failedSignin(provider: "p\(call)"), failedSignin(provider: "q\(call)")])
            )
            guard case .written(let results) = await BatchWriter.write([command], on: connection) else {
                Issue.record("batch \(call) did not start")
                return
            }
            #expect(results.allSatisfy { (try? $0.get()) != nil })
        }
        // The first call runs the text unnamed, the second prepares it; from then on each call executes the
        // prepared statement, and a custom plan would mean planning on every call.
        let rows = try await connection.query(
            """
            SELECT generic_plans, custom_plans FROM pg_prepared_statements
            WHERE statement LIKE 'SELECT r.event_id::text,%'
            """
        ).rows
        #expect(rows.count == 1)
        let generic = try rows.first?.decode(Int64.self, at: 0)
        let custom = try rows.first?.decode(Int64.self, at: 1)
        #expect(generic == 11)
        #expect(custom == 0)
    }

    /// The generic plan of `statement` as the writer's transaction makes it (``BatchWriter/transactionSettings``).
    static func genericPlan(of statement: SQLQuery, on connection: Connection) async throws -> String {
        let arguments = statement.binds.map { value in
            value.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL"
        }
        let suffix = arguments.isEmpty ? "" : "(" + arguments.joined(separator: ", ") + ")"
        try await connection.execute("BEGIN")
        let plan: Result<QueryResult, any Error>
        do {
            for setting in BatchWriter.transactionSettings { try await connection.query(setting) }
            try await connection.execute(SQLQuery(unsafeSQL: "PREPARE plan_probe AS " + statement.sql))
            plan = .success(try await connection.execute(SQLQuery(unsafeSQL: "EXPLAIN EXECUTE plan_probe" + suffix)))
        } catch {
            plan = .failure(error)
        }
        try await connection.execute("ROLLBACK")
        // A prepared statement outlives the transaction; a failed PREPARE left none.
        _ = try? await connection.execute("DEALLOCATE plan_probe")
        return try plan.get().rows.map { try $0.decode(String.self, at: 0) }.joined(separator: "\n")
    }

    /// 100,000 active sessions, each with a refresh token, written straight into the projections.
    static func fillSessions(on connection: Connection) async throws {
        try await connection.execute(
            """
            INSERT INTO authlog.sessions (session_id, user_id, provider, client_id, kind, started_at, last_seen_at,
                authenticated_at, state)
            SELECT gen_random_uuid(), gen_random_uuid(), 'apple', NULL, 'remember_me', now(), now(), now(), 'active'
            FROM generate_series(1, 100000);
            INSERT INTO authlog.refresh_tokens (token_hash, token_id, family_id, parent_id, session_id, user_id,
                provider, kind, state, issued_at, expires_at)
            SELECT sha256(s.session_id::text::bytea), gen_random_uuid(), gen_random_uuid(), NULL, s.session_id,
                s.user_id, 'apple', 'remember_me', 'active', now(), now() + interval '30 days'
            FROM authlog.sessions s
            """
        )
    }
}
