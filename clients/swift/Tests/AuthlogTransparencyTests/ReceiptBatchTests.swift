import AuthlogClient
import AuthlogTransparency
import Foundation
import Testing

/// A receipt batch proves several events in one checkpoint with one multi-leaf proof; each way it can be wrong
/// fails with its own reason, and a quorum not met is an answer, not a failure.
struct ReceiptBatchTests {
    let crypto = PlatformTransparencyCrypto()
    let origin = "receipts.test/log"

    /// The id of the `number`th event.
    static func eventID(_ number: Int) -> String {
        String(format: "0190a1b2-c3d4-7e5f-8a9b-%012x", number)
    }

    /// A tree of `size` leaves holding `count` events (every third leaf from the fifth), a checkpoint of it signed
    /// by `signer` under `origin` and cosigned by `witnesses`, and the batch of those events.
    func batch(
        count: Int,
        witnesses: [CosignatureSigner] = [],
        origin: String? = nil,
        signer: NoteSigner? = nil,
        size: Int = 150
    ) throws -> (batch: ReceiptBatch, logKey: NoteVerifier) {
        var tree = MemoryTree(count: 0)
        var entries: [ReceiptBatch.Entry] = []
        for index in 0..<size {
            guard index >= 4, (index - 4) % 3 == 0, entries.count < count else {
                tree.append(digest: self.crypto.sha256([UInt8(index)]))
                continue
            }
            let id = Self.eventID(entries.count)
            let bytes = CanonicalBytes.event(eventID: id)
            entries.append(ReceiptBatch.Entry(eventID: id, position: Int64(index) + 1, eventBytes: bytes))
            tree.append(digest: self.crypto.sha256(bytes))
        }
        let signer = try signer ?? NoteSigner(name: self.origin, key: TestSigningKey(), crypto: self.crypto)
        let body = Checkpoint(origin: origin ?? self.origin, size: tree.size, root: tree.root(size: tree.size)).body
        var note = try signer.sign(body)
        for witness in witnesses { note += try witness.cosign(body: body, time: 1_795_600_000) }
        let proof = MultiLeafProof.ranges(indices: entries.map { $0.position - 1 }, size: tree.size)
            .map(tree.hash(of:))
        return (ReceiptBatch(note: note, entries: entries, proof: proof), signer.verifier)
    }

    func failure(_ batch: ReceiptBatch, _ logKey: NoteVerifier, policy: WitnessPolicy? = nil) -> ReceiptBatch.Failure? {
        do {
            _ = try batch.verify(logKey: logKey, policy: policy)
            return nil
        } catch {
            return error
        }
    }

    @Test func batchesOfOneAndOfFortyEventsVerify() throws {
        for count in [1, 40] {
            let (batch, logKey) = try self.batch(count: count)
            let verified = try batch.verify(logKey: logKey, policy: nil)
            #expect(verified.checkpoint.size == 150 && verified.checkpoint.origin == self.origin)
            #expect(verified.events.map(\.eventID) == batch.entries.map(\.eventID))
            #expect(verified.events.allSatisfy { $0.type == "signin.succeeded" })
            #expect(verified.quorumMet && verified.cosigned.isEmpty)
        }
        // An empty batch checks the note alone.
        let (full, logKey) = try self.batch(count: 3)
        let empty = ReceiptBatch(note: full.note, entries: [], proof: [])
        #expect(try empty.verify(logKey: logKey, policy: nil).events.isEmpty)
        #expect(
            self.failure(ReceiptBatch(note: full.note, entries: [], proof: full.proof), logKey)
                == .malformed("a proof with no receipt")
        )
    }

    @Test func eachFailureHasItsReason() throws {
        let (batch, logKey) = try self.batch(count: 5)
        let stranger = try NoteSigner(name: self.origin, key: TestSigningKey(), crypto: self.crypto)
        #expect(self.failure(batch, stranger.verifier) == .checkpoint(.notSignedByKey(self.origin)))

        let key = TestSigningKey()
        let renamed = try self.batch(
            count: 5,
            origin: "staging.test/log",
            signer: NoteSigner(name: self.origin, key: key, crypto: self.crypto)
        )
        #expect(
            self.failure(renamed.batch, renamed.logKey)
                == .wrongOrigin(checkpoint: "staging.test/log", key: self.origin)
        )

        let other = try NoteSigner(name: "other.test/log", key: TestSigningKey(), crypto: self.crypto)
        let witness = try CosignatureSigner(name: "witness.test/w1", key: TestSigningKey(), crypto: self.crypto)
        let policy = try WitnessPolicy(
            text: "log \(other.verifier.verifierKey)\nwitness W \(witness.verifier.verifierKey)\nquorum W\n",
            crypto: self.crypto
        )
        #expect(self.failure(batch, logKey, policy: policy) == .logNotInPolicy(logKey.verifierKey))

        var edited = batch
        edited.entries[2].eventID = Self.eventID(99)
        #expect(self.failure(edited, logKey) == .eventIDMismatch(named: Self.eventID(99), inBytes: Self.eventID(2)))

        edited = batch
        edited.entries[1].eventBytes.removeLast()
        #expect(
            self.failure(edited, logKey)
                == .event(
                    eventID: Self.eventID(1),
                    .malformed("the schema_version's length 1 runs past the end of the bytes")
                )
        )

        // A changed byte that keeps the bytes an event (a letter of the user agent): the leaf changes.
        edited = batch
        let agent = try #require(edited.entries[3].eventBytes.lastIndex(of: UInt8(ascii: "A")))
        edited.entries[3].eventBytes[agent] = UInt8(ascii: "B")
        #expect(self.failure(edited, logKey) == .notIncluded)

        edited = batch
        edited.proof[4][0] ^= 1
        #expect(self.failure(edited, logKey) == .notIncluded)

        // A proof hash removed is malformed: the shape (how many hashes the positions need) is checked first.
        edited = batch
        edited.proof.remove(at: 2)
        #expect(
            self.failure(edited, logKey)
                == .malformed("the proof has \(batch.proof.count - 1) hashes where \(batch.proof.count) are needed")
        )

        edited = batch
        edited.entries.swapAt(0, 1)
        #expect(
            self.failure(edited, logKey) == .malformed("the receipts are not sorted by position, or one is repeated")
        )
        edited = batch
        edited.entries[4].position = 151
        #expect(
            self.failure(edited, logKey) == .malformed("a receipt's position is outside the checkpoint's tree of 150")
        )
        edited = batch
        edited.proof[0].removeLast()
        #expect(
            self.failure(edited, logKey)
                == .malformed("a proof hash is not 32 bytes, or the proof has more than 4032")
        )
        #expect(
            "\(ReceiptBatch.Failure.eventIDMismatch(named: "a", inBytes: "b"))"
                == "the receipt named a holds the bytes of the event b"
        )
    }

    @Test func aQuorumNotMetIsAnAnswerNamingTheCosigners() throws {
        let witnesses = try (1...3).map {
            try CosignatureSigner(name: "witness.test/w\($0)", key: TestSigningKey(), crypto: self.crypto)
        }
        let policy = try WitnessPolicy(witnesses: witnesses.map(\.verifier), quorum: 2)
        let one = try self.batch(count: 4, witnesses: [witnesses[1]])
        let below = try one.batch.verify(logKey: one.logKey, policy: policy)
        #expect(!below.quorumMet && below.cosigned == ["witness.test/w2"] && below.events.count == 4)
        let two = try self.batch(count: 4, witnesses: [witnesses[2], witnesses[0]])
        let met = try two.batch.verify(logKey: two.logKey, policy: policy)
        #expect(met.quorumMet && met.cosigned == ["witness.test/w1", "witness.test/w3"])
    }
}
