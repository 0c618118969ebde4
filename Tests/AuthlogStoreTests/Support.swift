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

/// Verifies the log of `database`, checking checkpoint signatures with `key` and proving `outside` when given.
func verify(
    _ database: TestDatabase,
    key: NoteVerifier? = nil,
    outside: String? = nil
) async throws -> LogVerifier.Report {
    try await LogVerifier(pageSize: 700, key: key).verify(on: database.connect(), outside: outside)
}

/// The report of an intact log of `database` as it stands.
func intact(_ database: TestDatabase, checkpoints: Int = 0) async throws -> LogVerifier.Report {
    let connection = try await database.connect()
    let head = try await EventReader().head(on: connection)
    let recorded = try await connection.query(
        "SELECT count(*) FROM authlog.events WHERE type = 'audit.checkpoint_signed'"
    )
    return .intact(
        events: head.size,
        root: head.root,
        checkpoints: checkpoints,
        recordedRoots: try recorded.first?.decode(Int.self, at: 0) ?? 0
    )
}

/// Runs statements as the superuser with the append-only triggers of every log table disabled, as an attacker
/// with full access would.
func tamper(_ database: TestDatabase, _ statement: String) async throws {
    let tables = ["authlog.event_records", "authlog.log_leaves", "authlog.log_head", "authlog.checkpoints"]
    let connection = try await database.connect()
    try await connection.execute(
        SQLQuery(
            unsafeSQL: """
                BEGIN;
                \(tables.map { "ALTER TABLE \($0) DISABLE TRIGGER USER;" }.joined(separator: "\n"))
                \(statement);
                \(tables.map { "ALTER TABLE \($0) ENABLE TRIGGER USER;" }.joined(separator: "\n"))
                COMMIT
                """
        )
    )
}
