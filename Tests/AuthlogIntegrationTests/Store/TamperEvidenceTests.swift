import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

@Suite(.enabled(if: TestDatabase.isAvailable))
struct TamperEvidenceTests {
    /// A database holding 20 sealed events of generated traffic.
    private func seeded() async throws -> (TestDatabase, PostgresEventStore) {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        var traffic = TrafficGenerator(seed: 7)
        try await store.append(AppendCommand(events: Array(traffic.events(count: 20).prefix(20))))
        try await store.sealPending()
        #expect(try await verify(database) == intact(database))
        return (database, store)
    }

    /// A checkpoint signer with a fresh key.
    private func checkpointer(_ store: PostgresEventStore, name: String = "log.test/audit") throws -> Checkpointer {
        Checkpointer(
            store: store,
            signer: try NoteSigner(name: name, key: try PrivateKey.generate(for: .edDSA)),
            directory: nil
        )
    }

    @Test func anUpdatedEventIsNamed() async throws {
        let (database, _) = try await self.seeded()
        try await tamper(
            database,
            """
            UPDATE authlog.event_records SET user_agent = 'curl/8'
            WHERE event_id = (SELECT event_id FROM authlog.log_leaves WHERE position = 7)
            """
        )
        let report = try await verify(database)
        #expect(report == .broken(position: 7, reason: "edited: the event's contents do not match its digest"))
    }

    @Test func anUpdatedDataFieldWithARecomputedDigestIsNamedByItsLeaf() async throws {
        let (database, _) = try await self.seeded()
        let connection = try await database.connect()
        var event = try await EventReader().events(after: 11, limit: 1, on: connection)[0]
        event.envelope.data = .object([("x", .number("1"))])
        let digest = EventRow.digest(of: event.envelope, recordedAt: event.recordedAt)
        try await tamper(
            database,
            """
            UPDATE authlog.event_records SET data = '{"x": 1}', digest = '\\x\(Hex.encode(digest))'
            WHERE event_id = '\(event.envelope.eventID.lowercased)'
            """
        )
        #expect(try await verify(database) == .broken(position: 12, reason: "the leaf hash does not match the event"))
    }

    /// A deleted event in the middle (9) and the last one (20), which only the head reveals.
    @Test(arguments: [Int64(9), 20])
    func aDeletedEventIsNamed(deleted: Int64) async throws {
        let (database, _) = try await self.seeded()
        try await tamper(database, "DELETE FROM authlog.log_leaves WHERE position = \(deleted)")
        guard case .broken(let position, let reason) = try await verify(database) else {
            Issue.record("a deleted event must break the log")
            return
        }
        #expect(position == deleted)
        #expect(reason.hasPrefix("missing"))
    }

    @Test func anInsertedEventIsNamedEvenWithValidHashes() async throws {
        let (database, _) = try await self.seeded()
        let connection = try await database.connect()
        let last = try await EventReader().events(after: 19, limit: 1, on: connection)[0]
        var forged = last.envelope
        forged.eventID = .version7()
        forged.streamVersion = 999
        let digest = EventRow.digest(of: forged, recordedAt: last.recordedAt)
        let leaf = MerkleTree.leafHash(position: 21, digest: digest)
        try await tamper(
            database,
            """
            INSERT INTO authlog.event_records SELECT '\(forged.eventID.lowercased)', stream, 999, type, occurred_at,
                recorded_at, outcome, reason, provider, user_id, session_id, client_id, ip, user_agent, request_id, data,
                schema_version, '\\x\(Hex.encode(digest))', log_month FROM authlog.event_records WHERE event_id = '\(last.envelope.eventID.lowercased)';
            INSERT INTO authlog.log_leaves VALUES (21, '\(forged.eventID.lowercased)', '\\x\(Hex.encode(leaf))', '', now(),
                (SELECT month FROM authlog.log_epoch))
            """
        )
        let report = try await verify(database)
        #expect(report == .broken(position: 21, reason: "inserted: the event lies beyond the head at 20"))
    }

    @Test func twoSwappedEventsAreNamed() async throws {
        let (database, _) = try await self.seeded()
        try await tamper(
            database,
            """
            UPDATE authlog.log_leaves SET position = 1000005 WHERE position = 5;
            UPDATE authlog.log_leaves SET position = 5 WHERE position = 11;
            UPDATE authlog.log_leaves SET position = 11 WHERE position = 1000005
            """
        )
        #expect(try await verify(database) == .broken(position: 5, reason: "the leaf hash does not match the event"))
    }

    @Test func aCommittedEventDroppedFromTheQueueIsCaught() async throws {
        let (database, store) = try await self.seeded()
        let blocker = try await database.connect()
        try await blocker.execute("BEGIN; SELECT * FROM authlog.log_head FOR UPDATE")
        try await store.append(failedSignin())
        try await database.connect().execute("DELETE FROM authlog.unsealed_events")
        try await blocker.execute("ROLLBACK")
        let report = try await verify(database)
        #expect(
            report
                == .broken(
                    position: 21,
                    reason: "unsealed: 1 committed events are neither sealed nor waiting in the queue"
                )
        )
    }

    /// Everything after position 15 is deleted and the head rewound: the stored data is self-consistent, and only
    /// the checkpoint kept outside shows it.
    @Test func truncationAfterACheckpointIsCaughtWithTheOutsideNote() async throws {
        let (database, store) = try await self.seeded()
        let checkpointer = try self.checkpointer(store)
        let outside = try await checkpointer.signNow().note
        #expect(outside.hasPrefix("log.test/audit\n20\n"))
        try await store.sealPending()
        let frontier = try await storedFrontier(database, size: 15)
        try await tamper(
            database,
            """
            DELETE FROM authlog.checkpoints;
            DELETE FROM authlog.event_records WHERE event_id IN (SELECT event_id FROM authlog.log_leaves WHERE position > 15);
            DELETE FROM authlog.log_leaves WHERE position > 15;
            UPDATE authlog.log_head SET size = 15, root = '\\x\(Hex.encode(frontier.root))',
                frontier = '\\x\(Hex.encode(frontier.bytes))'
            """
        )
        #expect(
            try await verify(database, key: checkpointer.verifier) == intact(database),
            "consistent without the note"
        )
        let report = try await verify(database, key: checkpointer.verifier, outside: outside)
        #expect(
            report
                == .broken(
                    position: 16,
                    reason: "rolled back: the outside checkpoint covers 20 events but the log ends at 15"
                )
        )
    }

    /// Event 7 is rewritten with every hash recomputed and the checkpoint re-signed with another key: the
    /// re-signed note proves nothing, and the root the log recorded, or the outside note's, differs.
    @Test func aReSignedRewriteIsCaught() async throws {
        let (database, store) = try await self.seeded()
        let checkpointer = try self.checkpointer(store)
        let outside = try await checkpointer.signNow().note
        try await store.sealPending()
        // The forger rewrites event 7, recomputes every hash after it and re-signs the checkpoint of 20.
        try await rewrite(database, position: 7)
        let rootAt20 = try await storedFrontier(database, size: 20).root
        let forgedNote = try NoteSigner(name: "log.test/audit", key: try PrivateKey.generate(for: .edDSA))
            .sign(Checkpoint(origin: "log.test/audit", size: 20, root: rootAt20).body)
        try await tamper(
            database,
            """
            UPDATE authlog.checkpoints SET root = '\\x\(Hex.encode(rootAt20))', note = '\(forgedNote)' WHERE tree_size = 20
            """
        )
        // The re-signed note proves nothing; the root the log recorded when it signed 20 catches the rewrite.
        #expect(
            try await verify(database, key: checkpointer.verifier)
                == .broken(
                    position: 1,
                    reason: "rewritten: the tree of 20 events no longer has the root given by audit.checkpoint_signed "
                        + "at position 21; a position in 1…20 was changed"
                )
        )
        // Without the stored checkpoints (dropped by the forger), the outside note catches it too.
        try await tamper(database, "DELETE FROM authlog.checkpoints")
        let report = try await verify(database, key: checkpointer.verifier, outside: outside)
        #expect(
            report
                == .broken(
                    position: 1,
                    reason: "rewritten: the tree of 20 events no longer has the root given by the outside checkpoint; "
                        + "a position in 1…20 was changed"
                )
        )
    }

    @Test func anOutsideNoteSignedByAnotherKeyIsRefused() async throws {
        let (database, store) = try await self.seeded()
        let checkpointer = try self.checkpointer(store)
        let head = try await EventReader().head(on: database.connect())
        let stranger = try NoteSigner(name: "log.test/audit", key: try PrivateKey.generate(for: .edDSA))
        let forged = try stranger.sign(Checkpoint(origin: "log.test/audit", size: head.size, root: head.root).body)
        let report = try await verify(database, key: checkpointer.verifier, outside: forged)
        #expect(
            report
                == .otherKey(
                    "signed by an unknown key: the outside checkpoint (\(NoteKeyring.keyID(of: stranger.verifier))) "
                        + "(the events and the tree are intact; give every key the log was signed with: "
                        + "--verifier-key, or log.previous_checkpoint_verifier_keys)"
                )
        )
        #expect(report.exitStatus == 4 && !report.passed)
    }
}
