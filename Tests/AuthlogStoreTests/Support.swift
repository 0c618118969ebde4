import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation

/// A sign-in failure event on `signin-<provider>`: the simplest valid event.
func failedSignin(provider: String = "apple", at time: Timestamp = .now(), reason: String = "expired") -> EventEnvelope
{
    let event = try? EventEnvelope(
        SigninFailed(reason: reason),
        stream: StreamName(category: "signin", id: provider),
        occurredAt: time,
        reason: reason,
        provider: provider
    )
    guard let event else { preconditionFailure("a fixed payload always encodes") }
    return event
}

/// The ordered list of stored positions.
func positions(in database: TestDatabase) async throws -> [Int64] {
    let rows = try await database.connect().query("SELECT position FROM authlog.events ORDER BY position")
    return try rows.rows.map { try $0.decode(Int64.self, at: 0) }
}

/// Verifies the chain of `database`.
func verify(_ database: TestDatabase) async throws -> ChainVerifier.Report {
    try await ChainVerifier(pageSize: 700).verify(on: database.connect())
}

/// Runs statements as the superuser with the append-only triggers disabled, as an attacker with full access would.
func tamper(_ database: TestDatabase, _ statement: String) async throws {
    let connection = try await database.connect()
    try await connection.execute(
        SQLQuery(
            unsafeSQL: """
                BEGIN;
                ALTER TABLE authlog.events DISABLE TRIGGER USER;
                \(statement);
                ALTER TABLE authlog.events ENABLE TRIGGER USER;
                COMMIT
                """
        )
    )
}
