import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

/// The checkpoint signer keeps the last checkpoint it signed outside the database and never signs a head
/// that contradicts it: the attacks of a database owner without the key (a truncation with the head rewound,
/// a rollback to a dump followed by other events, a consistent rewrite, a broken store, a note already on
/// disk) are each refused with their reason, recorded once, and nothing is signed or overwritten.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct SignerStateTests {
    private static let origin = "log.test/audit"

    /// 20 sealed events, a signer keeping its state in a fresh directory, and its first checkpoint (of 20; its
    /// own audit.checkpoint_signed is event 21).
    private func signed() async throws -> (TestDatabase, PostgresEventStore, Checkpointer, String, PrivateKey) {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        var traffic = TrafficGenerator(seed: 21)
        try await store.append(AppendCommand(events: Array(traffic.events(count: 20).prefix(20))))
        let key = try PrivateKey.generate(for: .edDSA)
        let directory = NSTemporaryDirectory() + "authlog-signer-\(UUID().uuidString)"
        let checkpointer = Checkpointer(
            store: store,
            signer: try NoteSigner(name: Self.origin, key: key),
            directory: directory
        )
        let first = try await checkpointer.signNow()
        #expect(first.size == 20 && first.isNew)
        try await store.sealPending()
        return (database, store, checkpointer, directory, key)
    }

    /// Signs now and returns the refusal (nil: it signed).
    private func refusal(_ checkpointer: Checkpointer) async throws -> CheckpointRefusal? {
        do {
            _ = try await checkpointer.signNow()
            return nil
        } catch let refusal as CheckpointRefusal {
            return refusal
        }
    }

    /// The recorded refusals: reason and detail, oldest first.
    private func recordedRefusals(_ database: TestDatabase) async throws -> [String] {
        let rows = try await database.connect().query(
            """
            SELECT reason || ': ' || (data->>'detail') FROM authlog.event_records
            WHERE type = 'audit.checkpoint_refused' ORDER BY recorded_at, event_id
            """
        )
        return try rows.rows.map { try $0.decode(String.self, at: 0) }
    }

    /// Deletes every position after `size` and the stored checkpoints, and rewinds the head: a store as
    /// consistent as a dump restored from before.
    private func truncate(_ database: TestDatabase, to size: Int64) async throws {
        let frontier = try await storedFrontier(database, size: size)
        try await tamper(
            database,
            """
            DELETE FROM authlog.checkpoints;
            DELETE FROM authlog.event_records WHERE event_id IN (SELECT event_id FROM authlog.log_leaves WHERE position > \(size));
            DELETE FROM authlog.log_leaves WHERE position > \(size);
            UPDATE authlog.log_head SET size = \(size), root = '\\x\(Hex.encode(frontier.root))',
                frontier = '\\x\(Hex.encode(frontier.bytes))'
            """
        )
    }

    @Test func aTruncatedLogIsARollbackRecordedOnce() async throws {
        let (database, _, checkpointer, directory, _) = try await self.signed()
        try await self.truncate(database, to: 15)
        let refusal = try await self.refusal(checkpointer)
        #expect(refusal?.reason == .rollback)
        #expect(refusal?.detail == "the log has 15 events but this signer already signed a checkpoint of 20")
        #expect(refusal?.lastSigned.size == 20)
        // Asked again (the scheduler asks every second), it refuses again but records the contradiction once.
        #expect(try await self.refusal(checkpointer)?.reason == .rollback)
        #expect(
            try await self.recordedRefusals(database) == [
                "rollback: the log has 15 events but this signer already signed a checkpoint of 20"
            ]
        )
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/checkpoint-15.note"))
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/checkpoint-16.note"))
        let state = try String(contentsOfFile: "\(directory)/latest.note", encoding: .utf8)
        #expect(state.hasPrefix("\(Self.origin)\n20\n"), "the state still holds the checkpoint of 20")
        #expect(try await Checkpointer.latest(pool: ConnectionPool(conninfo: database.conninfo)) == nil)
    }

    /// A dump restored from before the checkpoint, then other events: at the signed size it is a fork, past it
    /// the tree does not extend the signed one.
    @Test func aRollbackFollowedByOtherEventsIsAForkThenInconsistent() async throws {
        let (database, store, checkpointer, _, _) = try await self.signed()
        try await self.truncate(database, to: 15)
        var other = TrafficGenerator(seed: 99)
        try await store.append(AppendCommand(events: Array(other.events(count: 5).prefix(5))))
        try await store.sealPending()
        let fork = try await self.refusal(checkpointer)
        #expect(fork?.reason == .fork)
        #expect(fork?.detail == "the log has 20 events, as signed, but another root")
        try await store.sealPending()  // the refusal's own event: 21 events
        try await store.append(AppendCommand(events: Array(other.events(count: 4).prefix(4))))
        let inconsistent = try await self.refusal(checkpointer)
        #expect(inconsistent?.reason == .inconsistent)
        #expect(
            inconsistent?.detail
                == "the log's head (25 events) does not extend the checkpoint of 20: its first 20 events no longer "
                + "have the signed root"
        )
        #expect(try await self.recordedRefusals(database).map { $0.prefix { $0 != ":" } } == ["fork", "inconsistent"])
    }

    /// Event 7 rewritten with every hash after it recomputed, the head moved and the stored checkpoint deleted:
    /// consistent in itself, but not with the state kept outside.
    @Test func aConsistentRewriteIsRefused() async throws {
        let (database, store, checkpointer, _, _) = try await self.signed()
        try await rewrite(database, position: 7)
        try await tamper(database, "DELETE FROM authlog.checkpoints")
        var more = TrafficGenerator(seed: 5)
        try await store.append(AppendCommand(events: Array(more.events(count: 3).prefix(3))))
        let refusal = try await self.refusal(checkpointer)
        #expect(refusal?.reason == .inconsistent)
        #expect(
            refusal?.detail
                == "the log's head (24 events) does not extend the checkpoint of 20: its first 20 events no longer "
                + "have the signed root"
        )
    }

    @Test func aHeadTheStoredNodesContradictIsABrokenStore() async throws {
        let (database, store, checkpointer, _, _) = try await self.signed()
        var more = TrafficGenerator(seed: 6)
        try await store.append(AppendCommand(events: Array(more.events(count: 2).prefix(2))))
        try await store.sealPending()
        try await tamper(database, "UPDATE authlog.log_head SET root = sha256('forged'::bytea)")
        let refusal = try await self.refusal(checkpointer)
        #expect(refusal?.reason == .brokenStore)
        #expect(refusal?.detail == "the stored nodes give the tree of 23 events another root than the log's head")
    }

    @Test func aLastLeafThatIsNotItsEventsHashIsABrokenStore() async throws {
        let (database, store, checkpointer, _, _) = try await self.signed()
        var more = TrafficGenerator(seed: 7)
        try await store.append(AppendCommand(events: Array(more.events(count: 2).prefix(2))))
        try await store.sealPending()
        // The last leaf is replaced with its tree recomputed (head and nodes agree), but it is no event's hash.
        let forged = SHA256.hash(Array("forged".utf8))
        var frontier = try await storedFrontier(database, size: 22)
        frontier.append(leaf: forged)
        try await tamper(
            database,
            """
            UPDATE authlog.log_leaves SET leaf_hash = '\\x\(Hex.encode(forged))' WHERE position = 23;
            UPDATE authlog.log_head SET root = '\\x\(Hex.encode(frontier.root))', frontier = '\\x\(Hex.encode(frontier.bytes))'
            """
        )
        let refusal = try await self.refusal(checkpointer)
        #expect(refusal?.reason == .brokenStore)
        #expect(refusal?.detail == "the last stored leaf (23) is missing or is not the hash of its event")
    }

    @Test func anExistingNoteIsNeverOverwritten() async throws {
        let (database, store, checkpointer, directory, _) = try await self.signed()
        let path = "\(directory)/checkpoint-22.note"
        try "another note\n".write(toFile: path, atomically: true, encoding: .utf8)
        var more = TrafficGenerator(seed: 8)
        try await store.append(AppendCommand(events: Array(more.events(count: 1).prefix(1))))
        let refusal = try await self.refusal(checkpointer)
        #expect(refusal?.reason == .fork)
        #expect(refusal?.detail == "\(path) already holds another checkpoint of 22 events; it is not overwritten")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "another note\n")
        #expect(try await Checkpointer.latest(pool: ConnectionPool(conninfo: database.conninfo))?.size == 20)
    }

    /// Two signers with one key and their own state share a database: each adopts the other's newer
    /// checkpoint once it is proved consistent, and refuses one signed by another key.
    @Test func aSiblingsCheckpointIsAdoptedOnlyWhenConsistentAndOurs() async throws {
        let (database, store, first, _, key) = try await self.signed()
        let siblingDirectory = NSTemporaryDirectory() + "authlog-signer-\(UUID().uuidString)"
        let sibling = Checkpointer(
            store: store,
            signer: try NoteSigner(name: Self.origin, key: key),
            directory: siblingDirectory
        )
        var more = TrafficGenerator(seed: 9)
        try await store.append(AppendCommand(events: Array(more.events(count: 3).prefix(3))))
        let second = try await sibling.signNow()
        #expect(second.size == 24 && second.isNew)
        try await store.append(AppendCommand(events: Array(more.events(count: 3).prefix(3))))
        let third = try await first.signNow()
        #expect(third.size == 28 && third.isNew, "the first signer adopted 24 (consistent) and signed on")
        // A checkpoint in the database signed by another key is not adopted.
        try await store.sealPending()
        let head = try await EventReader().head(on: database.connect())
        let stranger = try NoteSigner(name: Self.origin, key: try PrivateKey.generate(for: .edDSA))
        let foreign = try stranger.sign(Checkpoint(origin: Self.origin, size: head.size, root: head.root).body)
        try await tamper(
            database,
            """
            INSERT INTO authlog.checkpoints (tree_size, root, key_name, note, signed_at)
            VALUES (\(head.size), '\\x\(Hex.encode(head.root))', '\(Self.origin)', '\(foreign)', now())
            """
        )
        let refusal = try await self.refusal(sibling)
        #expect(refusal?.reason == .otherKey)
        #expect(
            refusal?.detail
                == "the stored checkpoint at \(head.size) is not signed by this signer's keys: signed by an "
                + "unknown key (\(NoteKeyring.keyID(of: stranger.verifier)))"
        )
        #expect(store.integrity.snapshot.refusal?.reason == .otherKey)
    }

    /// A rollback below a checkpoint a sibling stored is refused even by a signer with no state of its own.
    @Test func aLogSmallerThanAStoredCheckpointIsARollbackForAnySigner() async throws {
        let (database, store, _, _, key) = try await self.signed()
        try await tamper(
            database,
            """
            DELETE FROM authlog.event_records WHERE event_id IN (SELECT event_id FROM authlog.log_leaves WHERE position > 15);
            DELETE FROM authlog.log_leaves WHERE position > 15
            """
        )
        let frontier = try await storedFrontier(database, size: 15)
        try await tamper(
            database,
            """
            UPDATE authlog.log_head SET size = 15, root = '\\x\(Hex.encode(frontier.root))',
                frontier = '\\x\(Hex.encode(frontier.bytes))'
            """
        )
        let fresh = Checkpointer(
            store: store,
            signer: try NoteSigner(name: Self.origin, key: key),
            directory: NSTemporaryDirectory() + "authlog-signer-\(UUID().uuidString)"
        )
        let refusal = try await self.refusal(fresh)
        #expect(refusal?.reason == .rollback)
        #expect(refusal?.detail == "the log has 15 events but a checkpoint of 20 is stored")
    }

    /// Events sealed by hand past the sealer, and MACs stripped in the database, are refused before they are
    /// signed: the signer checks the MAC of every event it adds, and requires one after the position it wrote
    /// outside the database when it first signed with the event key.
    @Test func eventsTheSignerWouldAddAreCheckedAndMACsCannotBeSwitchedOff() async throws {
        let database = try await TestDatabase.make()
        let eventKey = try EventAuthenticator(key: SecureRandom.bytes(count: 32))
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo), authenticator: eventKey)
        var traffic = TrafficGenerator(seed: 23)
        try await store.append(AppendCommand(events: Array(traffic.events(count: 10).prefix(10))))
        let directory = NSTemporaryDirectory() + "authlog-signer-\(UUID().uuidString)"
        let checkpointer = Checkpointer(
            store: store,
            signer: try NoteSigner(name: Self.origin, key: try PrivateKey.generate(for: .edDSA)),
            directory: directory
        )
        #expect(try await checkpointer.signNow().size == 10)
        #expect(try String(contentsOfFile: "\(directory)/latest.note.macs-required-after", encoding: .utf8) == "10\n")
        try await store.append(AppendCommand(events: Array(traffic.events(count: 1).prefix(1))))
        try await store.sealPending()
        // Event 11 is the checkpoint's own record; event 12 the new one. The database owner strips every MAC and
        // forgets the key id, then rewrites event 12's contents with
        // its digest, leaf, nodes and head recomputed: consistent, but without a MAC.
        try await tamper(
            database,
            "UPDATE authlog.event_records SET mac = NULL; UPDATE authlog.log_head SET event_key_id = NULL"
        )
        let connection = try await database.connect()
        var event = try await EventReader().events(after: 11, limit: 1, on: connection)[0]
        event.envelope.userAgent = "forged/1"
        let digest = EventRow.digest(of: event.envelope, recordedAt: event.recordedAt)
        var frontier = try await storedFrontier(database, size: 11)
        let leaf = MerkleTree.leafHash(position: 12, digest: digest)
        let nodes = frontier.append(leaf: leaf).flatMap { $0 }
        try await tamper(
            database,
            """
            UPDATE authlog.event_records SET user_agent = 'forged/1', digest = '\\x\(Hex.encode(digest))'
            WHERE event_id = '\(event.envelope.eventID.lowercased)';
            UPDATE authlog.log_leaves SET leaf_hash = '\\x\(Hex.encode(leaf))', subtree_hashes = '\\x\(Hex.encode(nodes))'
            WHERE position = 12;
            UPDATE authlog.log_head SET root = '\\x\(Hex.encode(frontier.root))', frontier = '\\x\(Hex.encode(frontier.bytes))'
            """
        )
        let stripped = try await self.refusal(checkpointer)
        #expect(stripped?.reason == .forged)
        #expect(stripped?.detail == "event 11 has no MAC, though this signer requires one after 10")
        // With event 11's MAC put back, event 12 is the one without.
        let eleven = try await EventReader().events(after: 10, limit: 1, on: connection)[0]
        try await tamper(
            database,
            """
            UPDATE authlog.event_records SET mac = '\\x\(Hex.encode(eventKey.mac(of: eleven.digest)))'
            WHERE event_id = '\(eleven.envelope.eventID.lowercased)'
            """
        )
        #expect(
            try await self.refusal(checkpointer)?.detail
                == "event 12 has no MAC, though this signer requires one after 10"
        )
        // A made-up MAC on it does not verify either.
        try await tamper(
            database,
            "UPDATE authlog.event_records SET mac = sha256('x'::bytea) WHERE user_agent = 'forged/1'"
        )
        let madeUp = try await self.refusal(checkpointer)
        #expect(madeUp?.detail == "event 12's MAC does not verify under the event key")
        #expect(try await Checkpointer.latest(pool: store.pool)?.size == 10, "nothing more was signed")
    }
}
