import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// `verify` reads everything the log says about itself and names what it finds: a rewrite caught by the
/// roots the log recorded in its own `audit.checkpoint_signed` events (with no note kept outside) in the
/// smallest range they allow, a fork (two notes of one size), and a note signed by an unknown key, which is
/// not tampering.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct VerifyDiagnosisTests {
    private static let origin = "log.test/audit"

    /// Checkpoints of 20, 41 and 62 events (each followed by its audit.checkpoint_signed: 21, 42, 63).
    private func threeCheckpoints() async throws -> (TestDatabase, PostgresEventStore, NoteSigner, [String]) {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        let signer = try NoteSigner(name: Self.origin, key: try PrivateKey.generate(for: .edDSA))
        let checkpointer = Checkpointer(store: store, signer: signer, directory: nil)
        var traffic = TrafficGenerator(seed: 62)
        var notes: [String] = []
        for _ in 0..<3 {
            try await store.append(AppendCommand(events: Array(traffic.events(count: 20).prefix(20))))
            notes.append(try await checkpointer.signNow().note)
        }
        try await store.sealPending()
        #expect(notes.map { $0.split(separator: "\n")[1] } == ["20", "41", "62"])
        return (database, store, signer, notes)
    }

    @Test func aRewriteIsNamedByTheLogsOwnRecordedRootsInTheSmallestRange() async throws {
        let (database, _, signer, _) = try await self.threeCheckpoints()
        let signedBy = [LogVerifier.KeyTally(keyID: NoteKeyring.keyID(of: signer.verifier), stored: 3)]
        #expect(
            try await verify(database, key: signer.verifier) == intact(database, checkpoints: 3, signedBy: signedBy)
        )
        try await rewrite(database, position: 30)
        try await tamper(database, "DELETE FROM authlog.checkpoints")
        #expect(
            try await verify(database, key: signer.verifier)
                == .broken(
                    position: 21,
                    reason: "rewritten: the tree of 41 events no longer has the root given by audit.checkpoint_signed "
                        + "at position 42; a position in 21…41 was changed"
                )
        )
        // Without any key the recorded roots still catch it.
        guard case .broken(21, _) = try await verify(database) else {
            Issue.record("the recorded roots must catch the rewrite without a key")
            return
        }
    }

    @Test func twoNotesOfOneSizeAreAForkOrARewrite() async throws {
        let (database, _, signer, notes) = try await self.threeCheckpoints()
        // The same key signed another root for 41 (a server that signed after a rollback to a dump). The events
        // give the database's root: measured against the note kept outside, a position up to 41 was changed.
        let other = try signer.sign(Checkpoint(origin: Self.origin, size: 41, root: SHA256.hash([1, 2, 3])).body)
        let report = try await verify(database, key: signer.verifier, outside: other)
        #expect(
            report
                == .broken(
                    position: 1,
                    reason: "rewritten: the tree of 41 events no longer has the root given by the outside checkpoint; "
                        + "a position in 1…41 was changed (the stored checkpoint at 41 gives the recomputed root: the "
                        + "log's key signed both)"
                )
        )
        #expect(report.exitStatus == 1)
        // Two notes kept outside that disagree are a fork whatever the events say.
        let outside = [
            LogVerifier.OutsideNote(source: "note 41", note: notes[1], isRequired: false),
            LogVerifier.OutsideNote(source: "other 41", note: other, isRequired: false),
        ]
        let fork = try await LogVerifier(key: signer.verifier).verify(on: database.connect(), outsideNotes: outside)
        #expect(
            fork == .fork(size: 41, reason: "forked: note 41 and other 41 give the tree of 41 events different roots")
        )
        #expect(fork.summary(keyName: Self.origin).hasPrefix("log forked at size 41: forked: "))
        // A stored checkpoint of 41 that the events and a note kept outside contradict, the root the log recorded
        // deleted with its event's row: the database holds a second signed root.
        try await tamper(
            database,
            """
            UPDATE authlog.checkpoints SET root = '\\x\(Hex.encode(SHA256.hash([1, 2, 3])))', note = '\(other)'
            WHERE tree_size = 41;
            UPDATE authlog.event_records SET data = jsonb_set(data, '{root_hash}', '"-"')
            WHERE type = 'audit.checkpoint_signed' AND data->>'tree_size' = '41'
            """
        )
        let stored = try await LogVerifier(key: signer.verifier).verify(
            on: database.connect(),
            outsideNotes: [LogVerifier.OutsideNote(source: "note 41", note: notes[1], isRequired: false)]
        )
        #expect(
            stored
                == .fork(
                    size: 41,
                    reason: "forked: the stored checkpoint at 41 and note 41 give the tree of 41 events different "
                        + "roots; the events give note 41's"
                )
        )
    }

    /// A database owner holding the checkpoint key rewrites position 593 and everything after it consistently:
    /// digests, leaves, nodes, the head, the roots the log recorded in its `audit.checkpoint_signed` events, and the
    /// stored checkpoints signed again. Only notes kept outside show it, and they bound it: a position in 591…614
    /// (the note of 590 still matches, the one of 614 no longer does), not "forked at 614". With the event key the
    /// rewritten event is named too: its MAC no longer verifies.
    @Test func aConsistentResignedRewriteIsNamedInTheRangeTheOutsideNotesAllow() async throws {
        let database = try await TestDatabase.make()
        let key = try EventAuthenticator(key: SecureRandom.bytes(count: 32))
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo), authenticator: key)
        let signer = try NoteSigner(name: Self.origin, key: try PrivateKey.generate(for: .edDSA))
        let checkpointer = Checkpointer(store: store, signer: signer, directory: nil)
        var traffic = TrafficGenerator(seed: 593)
        var notes: [LogVerifier.OutsideNote] = []
        for count in [590, 23, 10] {
            for _ in 0..<(count / 10) {
                try await store.append(AppendCommand(events: Array(traffic.events(count: 10).prefix(10))))
            }
            if count % 10 > 0 {
                try await store.append(
                    AppendCommand(events: Array(traffic.events(count: count % 10).prefix(count % 10)))
                )
            }
            let signed = try await checkpointer.signNow()
            notes.append(.init(source: "checkpoint-\(signed.size).note", note: signed.note, isRequired: false))
        }
        try await store.sealPending()
        #expect(notes.map(\.source) == ["checkpoint-590.note", "checkpoint-614.note", "checkpoint-625.note"])
        try await rewriteConsistently(database, position: 593, signer: signer)

        let connection = try await database.connect()
        let withoutKey = try await LogVerifier(key: signer.verifier).verify(on: connection, outsideNotes: notes)
        let range =
            "rewritten: the tree of 614 events no longer has the root given by checkpoint-614.note; a position in "
            + "591…614 was changed (the stored checkpoint at 614 gives the recomputed root: the log's key signed both)"
        #expect(withoutKey == .broken(position: 591, reason: range))
        #expect(try await LogVerifier(key: signer.verifier).verify(on: connection).passed, "nothing inside shows it")
        let withKey = try await LogVerifier(key: signer.verifier, eventKey: key).verify(
            on: connection,
            outsideNotes: notes
        )
        #expect(
            withKey
                == .broken(
                    position: 593,
                    reason: "forged: the event's MAC does not verify under the event key; and " + range
                )
        )
    }

    @Test func notesOfAnotherKeyAreNotTampering() async throws {
        let (database, _, signer, _) = try await self.threeCheckpoints()
        let signedBy = NoteKeyring.keyID(of: signer.verifier)
        let stranger = try NoteSigner(name: Self.origin, key: try PrivateKey.generate(for: .edDSA))
        let report = try await verify(database, key: stranger.verifier)
        #expect(
            report
                == .otherKey(
                    "signed by an unknown key: the stored checkpoint at 20 (\(signedBy)); the stored checkpoint at "
                        + "41 (\(signedBy)); the stored checkpoint at 62 (\(signedBy)) (the events and the tree are "
                        + "intact; give every key the log was signed with: --verifier-key, or "
                        + "log.previous_checkpoint_verifier_keys)"
                )
        )
        #expect(report.exitStatus == 4)
    }

    @Test func everyNoteOfADirectoryIsChecked() async throws {
        let (database, _, signer, notes) = try await self.threeCheckpoints()
        let outside = notes.enumerated().map {
            LogVerifier.OutsideNote(source: "note \($0.offset + 1)", note: $0.element, isRequired: false)
        }
        let connection = try await database.connect()
        #expect(
            try await LogVerifier(key: signer.verifier).verify(on: connection, outsideNotes: outside)
                == intact(
                    database,
                    checkpoints: 6,
                    signedBy: [
                        .init(
                            keyID: NoteKeyring.keyID(of: signer.verifier),
                            stored: 3,
                            outside: ["note 1", "note 2", "note 3"]
                        )
                    ]
                )
        )
        try await tamper(
            database,
            """
            DELETE FROM authlog.checkpoints;
            DELETE FROM authlog.event_records WHERE event_id IN (SELECT event_id FROM authlog.log_leaves WHERE position > 50);
            DELETE FROM authlog.log_leaves WHERE position > 50
            """
        )
        let frontier = try await storedFrontier(database, size: 50)
        try await tamper(
            database,
            """
            UPDATE authlog.log_head SET size = 50, root = '\\x\(Hex.encode(frontier.root))',
                frontier = '\\x\(Hex.encode(frontier.bytes))'
            """
        )
        #expect(
            try await LogVerifier(key: signer.verifier).verify(on: connection, outsideNotes: outside)
                == .broken(position: 51, reason: "rolled back: note 3 covers 62 events but the log ends at 50")
        )
    }
}
