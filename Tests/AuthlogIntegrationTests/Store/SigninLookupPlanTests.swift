import AuthlogCore
import AuthlogPostgres
import AuthlogTesting
import Foundation
import Testing

@testable import AuthlogStore

/// The sign-in's first statement (the identity, and with alerts the user's history) keeps one generic plan per
/// connection: with its hashes in a variable-length array PostgreSQL planned it afresh on most executions
/// (`pg_stat_statements` under `authlog-bench service`: 30,578 plans in 42,964 calls).
@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct SigninLookupPlanTests {
    /// A database with 2,000 identities, analysed, and a pool of one connection (whose prepared statements the
    /// test reads).
    private func pool() async throws -> ConnectionPool {
        let database = try await TestDatabase.make()
        let connection = try await database.connect()
        try await connection.execute(
            """
            INSERT INTO authlog.identities (provider, subject_hash, user_id, linked_at)
            SELECT 'apple', md5(g::text), gen_random_uuid(), now() FROM generate_series(1, 2000) AS g;
            ANALYZE authlog.identities
            """
        )
        return ConnectionPool(conninfo: database.conninfo, maximumConnections: 1)
    }

    /// The generic and custom plans of the prepared statement whose text starts like `prefix`.
    private func plans(_ prefix: String, on pool: ConnectionPool) async throws -> (generic: Int64, custom: Int64) {
        let row = try await pool.withConnection { connection in
            try await connection.query(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE \(prefix + "%")"
            ).first
        }
        let found = try #require(row)
        return (try found.decode(Int64.self, at: 0), try found.decode(Int64.self, at: 1))
    }

    @Test func theIdentityLookupIsPlannedGenerically() async throws {
        let pool = try await self.pool()
        let queries = SessionQueries(pool: pool)
        for call in 0..<12 {
            _ = try await queries.identities(
                provider: "apple",
                subjectHashes: [hashHex("a\(call)"), hashHex("b\(call)")]
            )
        }
        // The first call runs unnamed, the second prepares; PostgreSQL tries five custom plans before it
        // weighs the generic one, and a custom plan on every later call would mean planning each time.
        let plans = try await self.plans("SELECT i.provider, i.subject_hash", on: pool)
        #expect(plans.custom <= 5)
        #expect(plans.generic >= 6)
    }

    @Test func theIdentityLookupWithHistoryIsPlannedGenerically() async throws {
        let pool = try await self.pool()
        let history = SigninHistoryQueries(pool: pool)
        for call in 0..<12 {
            _ = try await history.identitiesWithHistory(
                provider: "apple",
                subjectHashes: [hashHex("a\(call)"), hashHex("b\(call)")],
                limit: 20,
                devices: 20,
                areas: 50
            )
        }
        let plans = try await self.plans("SELECT i.provider, i.subject_hash", on: pool)
        #expect(plans.custom <= 5)
        #expect(plans.generic >= 6)
    }
}
