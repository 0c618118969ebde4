import AuthlogClient
import AuthlogTransparency
import Foundation
import Testing

/// A receipt (`c2sp.org/tlog-proof@v1`) proves one event offline with the log's key, and the witnesses' quorum
/// when a policy is given; every edited part fails with its reason.
struct LogReceiptTests {
    let crypto = PlatformTransparencyCrypto()
    let origin = "receipts.test/log"

    /// A tree whose seventh leaf is `event`, a signed checkpoint of it, and the receipt of the event.
    func receipt(
        witnesses: [CosignatureSigner] = [],
        origin: String? = nil,
        signer: NoteSigner? = nil
    ) throws -> (text: String, logKey: NoteVerifier, event: [UInt8], proof: [[UInt8]]) {
        let event = Array(#"{"type":"signin.succeeded"}"#.utf8)
        var tree = MemoryTree(count: 6)
        tree.append(digest: self.crypto.sha256(event))
        for index in 0..<14 { tree.append(digest: self.crypto.sha256([0xEE, UInt8(index)])) }
        let signer = try signer ?? NoteSigner(name: self.origin, key: TestSigningKey(), crypto: self.crypto)
        let body = Checkpoint(origin: origin ?? self.origin, size: tree.size, root: tree.root(size: tree.size)).body
        var note = try signer.sign(body)
        for witness in witnesses { note += try witness.cosign(body: body, time: 1_795_600_000) }
        let proof = tree.inclusion(index: 6, size: tree.size)
        let text = LogReceipt(position: 7, eventBytes: event, proof: proof, note: note).text
        return (text, signer.verifier, event, proof)
    }

    @Test func aReceiptProvesItsEventAndEveryEditedPartFails() throws {
        let (text, logKey, event, proof) = try self.receipt()
        let (receipt, checkpoint) = try LogReceipt.verify(text, logKey: logKey)
        #expect(receipt.position == 7 && receipt.eventBytes == event && checkpoint.size == 21)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func fails(_ edited: [String]) -> LogReceipt.Failure? {
            do {
                _ = try LogReceipt.verify(edited.joined(separator: "\n"), logKey: logKey)
                return nil
            } catch {
                return error
            }
        }
        var edited = lines
        edited[1] = "extra " + Data(event.dropLast() + [0x20]).base64EncodedString()
        #expect(fails(edited) == .notIncluded)
        edited = lines
        edited[2] = "index 7"
        #expect(fails(edited) == .notIncluded)
        for offset in proof.indices {
            edited = lines
            var hash = proof[offset]
            hash[offset % 32] ^= 1
            edited[3 + offset] = Data(hash).base64EncodedString()
            #expect(fails(edited) == .notIncluded, "proof line \(offset)")
        }
        edited = lines
        edited.remove(at: 3)
        #expect(fails(edited) == .notIncluded, "a dropped proof line")
        edited = lines
        edited[3 + proof.count + 3] = Data(self.crypto.sha256([1])).base64EncodedString()
        #expect(fails(edited) == .checkpoint(.badSignature(self.origin)))
        let stranger = try NoteSigner(name: self.origin, key: TestSigningKey(), crypto: self.crypto)
        #expect(throws: LogReceipt.Failure.checkpoint(.notSignedByKey(self.origin))) {
            try LogReceipt.verify(text, logKey: stranger.verifier)
        }
        edited = lines
        edited[0] = "c2sp.org/tlog-proof@v2"
        #expect(fails(edited) == .malformed("the first line is not c2sp.org/tlog-proof@v1"))
        edited = lines
        edited[2] = "index 06"
        #expect(fails(edited) == .malformed("the third line is not `index N`"))
        // 63 proof lines are read (and do not lead to the root); 64 are malformed.
        edited = lines
        edited.insert(contentsOf: [String](repeating: lines[3], count: 63 - proof.count), at: 3)
        #expect(fails(edited) == .notIncluded)
        edited.insert(lines[3], at: 3)
        #expect(fails(edited) == .malformed("an inclusion proof line is not a base64 SHA-256 hash (at most 63 lines)"))
        #expect(
            fails([String(repeating: "x", count: LogReceipt.maximumBytes + 1)]) == .malformed("larger than 256 KiB")
        )
    }

    @Test func aPolicyAsksForItsQuorumOfCosignatures() throws {
        let witnesses = try (1...3).map {
            try CosignatureSigner(name: "witness.test/w\($0)", key: TestSigningKey(), crypto: self.crypto)
        }
        let policy = try WitnessPolicy(witnesses: witnesses.map(\.verifier), quorum: 2)
        let one = try self.receipt(witnesses: [witnesses[0]])
        #expect(throws: LogReceipt.Failure.notWitnessed(cosigned: ["witness.test/w1"], invalid: [])) {
            try LogReceipt.verify(one.text, logKey: one.logKey, witnesses: policy)
        }
        let two = try self.receipt(witnesses: [witnesses[2], witnesses[0]])
        _ = try LogReceipt.verify(two.text, logKey: two.logKey, witnesses: policy)
        #expect(
            "\(LogReceipt.Failure.notWitnessed(cosigned: [], invalid: ["w"]))"
                == "the checkpoint is not witnessed: cosigned by none; cosignatures that do not verify: w"
        )
    }

    /// A note signature does not cover the key's name: a checkpoint of another origin, signed with the same key
    /// under that origin's name and renamed, verifies under this key, so the origin is what tells the logs apart.
    @Test func theCheckpointsOriginMustBeTheLogKeysName() throws {
        let key = TestSigningKey()
        let staging = try NoteSigner(name: "staging.test/log", key: key, crypto: self.crypto)
        let production = try NoteSigner(name: self.origin, key: key, crypto: self.crypto)
        let stagingReceipt = try self.receipt(origin: "staging.test/log", signer: staging)
        let signatureLine = try #require(stagingReceipt.text.split(separator: "\n").last)
        // Rename the signature line to production's key name and key hash: the Ed25519 signature still verifies.
        let blob = try #require(Data(base64Encoded: String(signatureLine.split(separator: " ")[2])))
        let renamed =
            "\u{2014} \(self.origin) " + Data(production.verifier.keyHash + blob.dropFirst(4)).base64EncodedString()
        let forged = stagingReceipt.text.replacingOccurrences(of: String(signatureLine), with: renamed)
        #expect(throws: LogReceipt.Failure.wrongOrigin(checkpoint: "staging.test/log", key: self.origin)) {
            try LogReceipt.verify(forged, logKey: production.verifier)
        }
        #expect(
            "\(LogReceipt.Failure.wrongOrigin(checkpoint: "a", key: "b"))"
                == "the checkpoint's origin a is not the name of the log key b that signed it"
        )
    }

    /// A policy's `log` lines are the log keys a receipt may be signed by.
    @Test func aPolicysLogLinesAreTheKeysAccepted() throws {
        let witness = try CosignatureSigner(name: "witness.test/w1", key: TestSigningKey(), crypto: self.crypto)
        let signer = try NoteSigner(name: self.origin, key: TestSigningKey(), crypto: self.crypto)
        let other = try NoteSigner(name: "other.test/log", key: TestSigningKey(), crypto: self.crypto)
        let receipt = try self.receipt(witnesses: [witness], signer: signer)
        func policy(logs: [NoteSigner]) throws -> WitnessPolicy {
            let lines = logs.map { "log \($0.verifier.verifierKey)" } + ["witness W \(witness.verifier.verifierKey)"]
            return try WitnessPolicy(text: (lines + ["quorum W"]).joined(separator: "\n") + "\n", crypto: self.crypto)
        }
        let ours = try policy(logs: [other, signer])
        #expect(try LogReceipt.verify(receipt.text, policy: ours).1.origin == self.origin)
        _ = try LogReceipt.verify(receipt.text, logKey: signer.verifier, witnesses: ours)
        let theirs = try policy(logs: [other])
        #expect(throws: LogReceipt.Failure.logNotInPolicy(signer.verifier.verifierKey)) {
            try LogReceipt.verify(receipt.text, logKey: signer.verifier, witnesses: theirs)
        }
        let refused = #expect(throws: LogReceipt.Failure.self) { try LogReceipt.verify(receipt.text, policy: theirs) }
        guard case .checkpoint(.unknownKey(let signers)) = refused else {
            Issue.record("expected an unknown key, got \(String(describing: refused))")
            return
        }
        #expect(signers.hasPrefix(NoteKeyring.keyID(of: signer.verifier)))
        let noLogs = try policy(logs: [])
        #expect(throws: LogReceipt.Failure.logNotInPolicy(nil)) { try LogReceipt.verify(receipt.text, policy: noLogs) }
        _ = try LogReceipt.verify(receipt.text, logKey: signer.verifier, witnesses: noLogs)
        #expect(
            "\(LogReceipt.Failure.logNotInPolicy(nil))" == "the policy lists no log to check the checkpoint with"
        )
    }
}
