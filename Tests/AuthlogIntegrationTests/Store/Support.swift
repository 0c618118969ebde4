import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
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

/// The report of an intact log of `database` as it stands, its notes signed as `signedBy` says.
func intact(
    _ database: TestDatabase,
    checkpoints: Int = 0,
    signedBy: [LogVerifier.KeyTally] = []
) async throws -> LogVerifier.Report {
    let connection = try await database.connect()
    let head = try await EventReader().head(on: connection)
    let recorded = try await connection.query(
        "SELECT count(*) FROM authlog.events WHERE type = 'audit.checkpoint_signed'"
    )
    return .intact(
        events: head.size,
        root: head.root,
        checkpoints: checkpoints,
        recordedRoots: try recorded.first?.decode(Int.self, at: 0) ?? 0,
        signedBy: signedBy
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

/// Rewrites the event at `position` (its user agent) and recomputes every hash after it, the head included.
func rewrite(_ database: TestDatabase, position: Int64) async throws {
    let connection = try await database.connect()
    var events = try await EventReader().events(after: 0, limit: 10_000, on: connection)
    events[Int(position) - 1].envelope.userAgent = "curl/8"
    var frontier = MerkleFrontier()
    var statements: [String] = []
    for event in events {
        let digest = EventRow.digest(of: event.envelope, recordedAt: event.recordedAt)
        let leaf = MerkleTree.leafHash(position: event.position, digest: digest)
        let nodes = frontier.append(leaf: leaf).flatMap { $0 }
        guard event.position >= position else { continue }
        statements.append(
            """
            UPDATE authlog.event_records SET user_agent = \(event.envelope.userAgent.map { "'\($0)'" } ?? "NULL"),
                digest = '\\x\(Hex.encode(digest))' WHERE event_id = '\(event.envelope.eventID.lowercased)';
            UPDATE authlog.log_leaves SET leaf_hash = '\\x\(Hex.encode(leaf))', subtree_hashes = '\\x\(Hex.encode(nodes))'
            WHERE position = \(event.position)
            """
        )
    }
    statements.append(
        "UPDATE authlog.log_head SET root = '\\x\(Hex.encode(frontier.root))', frontier = '\\x\(Hex.encode(frontier.bytes))'"
    )
    try await tamper(database, statements.joined(separator: ";\n"))
}

/// The frontier of the first `size` stored leaves.
func storedFrontier(_ database: TestDatabase, size: Int64) async throws -> MerkleFrontier {
    let rows = try await database.connect().query(
        "SELECT leaf_hash FROM authlog.log_leaves WHERE position <= \(size) ORDER BY position"
    )
    var frontier = MerkleFrontier()
    for row in rows.rows { frontier.append(leaf: try row.decode(ByteaValue.self, at: 0).bytes) }
    return frontier
}

/// Rewrites the event at `position` (its user agent) as a database owner holding the checkpoint key `signer` would,
/// leaving nothing inside the database to contradict it: every digest, leaf and node after it, the head, the roots
/// recorded in the `audit.checkpoint_signed` events of sizes from `position` on (their digests recomputed too), and
/// the stored checkpoints of those sizes signed again. The MACs stay as they were: the event key is not the
/// owner's.
func rewriteConsistently(_ database: TestDatabase, position: Int64, signer: NoteSigner) async throws {
    let connection = try await database.connect()
    var events = try await EventReader().events(after: 0, limit: 100_000, on: connection)
    events[Int(position) - 1].envelope.userAgent = "curl/8"
    var frontier = MerkleFrontier()
    var roots: [Int64: [UInt8]] = [:]
    var statements: [String] = []
    for var event in events {
        if event.envelope.type == .auditCheckpointSigned, case .object(var members) = event.envelope.data,
            let size = event.envelope.data["tree_size"].flatMap({ $0.canonicalText }).flatMap({ Int64($0) }),
            size >= position, let root = roots[size]
        {
            members = members.map { $0.0 == "root_hash" ? ($0.0, .string(Data(root).base64EncodedString())) : $0 }
            event.envelope.data = .object(members)
        }
        let digest = EventRow.digest(of: event.envelope, recordedAt: event.recordedAt)
        let leaf = MerkleTree.leafHash(position: event.position, digest: digest)
        let nodes = frontier.append(leaf: leaf).flatMap { $0 }
        roots[frontier.size] = frontier.root
        guard event.position >= position else { continue }
        let data = event.envelope.data.canonicalText.replacingOccurrences(of: "'", with: "''")
        statements.append(
            """
            UPDATE authlog.event_records SET user_agent = \(event.envelope.userAgent.map { "'\($0)'" } ?? "NULL"),
                data = '\(data)'::jsonb, digest = '\\x\(Hex.encode(digest))'
            WHERE event_id = '\(event.envelope.eventID.lowercased)';
            UPDATE authlog.log_leaves SET leaf_hash = '\\x\(Hex.encode(leaf))', subtree_hashes = '\\x\(Hex.encode(nodes))'
            WHERE position = \(event.position)
            """
        )
    }
    statements.append(
        "UPDATE authlog.log_head SET root = '\\x\(Hex.encode(frontier.root))', frontier = '\\x\(Hex.encode(frontier.bytes))'"
    )
    for row in try await connection.query("SELECT tree_size FROM authlog.checkpoints WHERE tree_size >= \(position)")
        .rows
    {
        let size = try row.decode(Int64.self, at: 0)
        guard let root = roots[size] else { continue }
        let note = try signer.sign(Checkpoint(origin: signer.name, size: size, root: root).body)
        statements.append(
            "UPDATE authlog.checkpoints SET root = '\\x\(Hex.encode(root))', note = '\(note)' WHERE tree_size = \(size)"
        )
    }
    try await tamper(database, statements.joined(separator: ";\n"))
}
