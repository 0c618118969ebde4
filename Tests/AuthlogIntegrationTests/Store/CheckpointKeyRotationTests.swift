import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

/// A checkpoint key is rotated without breaking anything: the signer with the new key extends the state the
/// old key signed once it is told the old key, `verify` checks each note with whichever key of its keyring
/// signed it and names them, a note of a key it was not given is "unknown key" (not tampering), and a forged
/// signature under a known key's ID is still broken.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct CheckpointKeyRotationTests {
    private static let origin = "log.test/audit"

    /// Three checkpoints (20, 41, 62) signed by the old key with its state in a fresh directory, then 20 more
    /// events.
    private func rotatedLog() async throws -> (
        database: TestDatabase, store: PostgresEventStore, old: NoteSigner, new: NoteSigner, directory: String,
        notes: [String]
    ) {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        let old = try NoteSigner(name: Self.origin, key: try PrivateKey.generate(for: .edDSA))
        let new = try NoteSigner(name: Self.origin, key: try PrivateKey.generate(for: .edDSA))
        let directory = NSTemporaryDirectory() + "authlog-rotation-\(UUID().uuidString)"
        let checkpointer = Checkpointer(store: store, signer: old, directory: directory)
        var traffic = TrafficGenerator(seed: 83)
        var notes: [String] = []
        for _ in 0..<3 {
            try await store.append(AppendCommand(events: Array(traffic.events(count: 20).prefix(20))))
            notes.append(try await checkpointer.signNow().note)
        }
        try await store.append(AppendCommand(events: Array(traffic.events(count: 20).prefix(20))))
        return (database, store, old, new, directory, notes)
    }

    @Test func theNewKeyExtendsTheOldKeysStateOnlyWhenToldTheOldKey() async throws {
        let log = try await self.rotatedLog()
        let stranger = Checkpointer(store: log.store, signer: log.new, directory: log.directory)
        do {
            _ = try await stranger.signNow()
            Issue.record("a signer that does not know the old key signed over its state")
        } catch let refusal as CheckpointRefusal {
            #expect(refusal.reason == .otherKey)
            #expect(
                refusal.detail
                    == "the signer state \(log.directory)/latest.note is not signed by this signer's keys: signed by "
                    + "an unknown key (\(NoteKeyring.keyID(of: log.old.verifier)))"
            )
        }
        let rotated = Checkpointer(
            store: log.store,
            signer: log.new,
            previousKeys: [log.old.verifier],
            directory: log.directory
        )
        let signed = try await rotated.signNow()
        #expect(signed.isNew && signed.size == 84, "62 + its signed event + 20 + the refusal's event")
        #expect(try log.new.verifier.open(signed.note).hasPrefix("\(Self.origin)\n84\n"))
        let state = try String(contentsOfFile: log.directory + "/latest.note", encoding: .utf8)
        #expect(state == signed.note, "the state moved on to the new key's note")
        // The old key alone can no longer sign over the state the new key signed.
        let rolledBack = Checkpointer(store: log.store, signer: log.old, directory: log.directory)
        await #expect(throws: CheckpointRefusal.self) { try await rolledBack.signNow() }
    }

    @Test func verifyNamesTheKeyOfEveryNoteAndAnUnknownKeyIsNotTampering() async throws {
        let log = try await self.rotatedLog()
        let rotated = Checkpointer(
            store: log.store,
            signer: log.new,
            previousKeys: [log.old.verifier],
            directory: log.directory
        )
        let newest = try await rotated.signNow().note
        try await log.store.sealPending()
        let outside = (log.notes + [newest]).enumerated().map {
            LogVerifier.OutsideNote(source: "note \($0.offset + 1)", note: $0.element, isRequired: false)
        }
        let connection = try await log.database.connect()
        let (oldID, newID) = (NoteKeyring.keyID(of: log.old.verifier), NoteKeyring.keyID(of: log.new.verifier))
        let keyring = NoteKeyring([log.new.verifier, log.old.verifier])
        let report = try await LogVerifier(keys: keyring).verify(on: connection, outsideNotes: outside)
        let expected = try await intact(
            log.database,
            checkpoints: 8,
            signedBy: [
                .init(keyID: newID, stored: 1, outside: ["note 4"]),
                .init(keyID: oldID, stored: 3, outside: ["note 1", "note 2", "note 3"]),
            ]
        )
        #expect(report == expected)
        #expect(
            report.summary(keyName: Self.origin).contains(
                "8 checkpoints match (signed by \(newID): 1 stored and note 4; \(oldID): 3 stored and note 1 and "
                    + "note 2 and note 3)"
            )
        )
        let newOnly = try await LogVerifier(keys: NoteKeyring([log.new.verifier])).verify(on: connection)
        #expect(
            newOnly
                == .otherKey(
                    "signed by an unknown key: the stored checkpoint at 20 (\(oldID)); the stored checkpoint at 41 "
                        + "(\(oldID)); the stored checkpoint at 62 (\(oldID)) (the events and the tree are intact; give "
                        + "every key the log was signed with: --verifier-key, or log.previous_checkpoint_verifier_keys)"
                )
        )
        #expect(newOnly.exitStatus == 4)
    }

    @Test func aForgedSignatureUnderAKnownKeysIDIsBrokenNotUnknown() async throws {
        let log = try await self.rotatedLog()
        try await log.store.sealPending()
        let head = try await EventReader().head(on: log.database.connect())
        // The old key's name and key ID over a signature of another key: what someone without the key forges.
        let body = Checkpoint(origin: Self.origin, size: head.size, root: head.root).body
        let forger = try NoteSigner(name: Self.origin, key: try PrivateKey.generate(for: .edDSA))
        let signed = try #require(NoteText(try forger.sign(body)))
        let blob = log.old.verifier.keyHash + Array(signed.signatures[0].blob.dropFirst(4))
        let forged = body + "\n\u{2014} \(Self.origin) \(Data(blob).base64EncodedString())\n"
        let report = try await LogVerifier(keys: NoteKeyring([log.new.verifier, log.old.verifier])).verify(
            on: log.database.connect(),
            outsideNotes: [.init(source: "the outside checkpoint", note: forged, isRequired: true)]
        )
        #expect(
            report
                == .broken(
                    position: 1,
                    reason: "the outside checkpoint: the signature by \(Self.origin) does not verify"
                )
        )
        #expect(report.exitStatus == 1)
    }
}
