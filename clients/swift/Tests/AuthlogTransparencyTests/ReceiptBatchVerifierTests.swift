import AuthlogClient
import AuthlogTransparency
import Foundation
import Synchronization
import Testing

/// ``ReceiptBatchVerifier`` checks a note's signatures once: the next batch against the same note costs only
/// its proof, and any other note — or the same note with another proof — is checked in full.
struct ReceiptBatchVerifierTests {
    /// The platform's crypto, counting the Ed25519 checks made through it.
    final class CountingCrypto: TransparencyCrypto {
        let base = PlatformTransparencyCrypto()
        let checks = Atomic<Int>(0)

        func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] { self.base.sha256(bytes) }

        func isValidEd25519Signature(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
            self.checks.add(1, ordering: .relaxed)
            return self.base.isValidEd25519Signature(signature, of: message, publicKey: publicKey)
        }
    }

    let crypto = CountingCrypto()
    let origin = "receipts.test/log"

    /// A batch of 3 events in a tree of `size` leaves (``ReceiptBatchTests``), signed by `signer` and cosigned by
    /// `witnesses`.
    func batch(signer: NoteSigner, witnesses: [CosignatureSigner], size: Int = 150) throws -> ReceiptBatch {
        try ReceiptBatchTests().batch(count: 3, witnesses: witnesses, signer: signer, size: size).batch
    }

    func failure(_ verifier: inout ReceiptBatchVerifier, _ batch: ReceiptBatch) -> ReceiptBatch.Failure? {
        do {
            _ = try verifier.verify(batch)
            return nil
        } catch {
            return error
        }
    }

    @Test func theSameNoteIsCheckedOnceAndAnyOtherInFull() throws {
        let signer = try NoteSigner(name: self.origin, key: TestSigningKey(), crypto: self.crypto)
        let witnesses = try (1...2).map {
            try CosignatureSigner(name: "witness.test/w\($0)", key: TestSigningKey(), crypto: self.crypto)
        }
        let policy = try WitnessPolicy(witnesses: witnesses.map(\.verifier), quorum: 2)
        let batch = try self.batch(signer: signer, witnesses: witnesses)
        var verifier = ReceiptBatchVerifier(logKey: signer.verifier, policy: policy)
        self.crypto.checks.store(0, ordering: .relaxed)
        // The policy checks each witness's cosignature once.
        #expect(policy.check(note: batch.note)?.quorumMet == true)
        #expect(self.crypto.checks.load(ordering: .relaxed) == 2)
        self.crypto.checks.store(0, ordering: .relaxed)

        let first = try verifier.verify(batch)
        #expect(self.crypto.checks.load(ordering: .relaxed) == 3, "the log's signature and two cosignatures")
        #expect(first == (try batch.verify(logKey: signer.verifier, policy: policy)))
        self.crypto.checks.store(0, ordering: .relaxed)

        // The same note again, with other events of its tree: no signature is checked, the proof is.
        let again = try verifier.verify(batch)
        #expect(self.crypto.checks.load(ordering: .relaxed) == 0)
        #expect(again == first && again.quorumMet && again.cosigned == ["witness.test/w1", "witness.test/w2"])
        #expect(verifier.checkpoint(ifVerified: batch.note) == first.checkpoint)

        // The same note with a proof that does not lead to its root still fails.
        var wrongProof = batch
        wrongProof.proof[0] = Array(repeating: 7, count: 32)
        #expect(self.failure(&verifier, wrongProof) == .notIncluded)

        // A note with one signature byte changed is another note: checked, and refused.
        var lines = batch.note.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let signatureLine = try #require(lines.firstIndex { $0.hasPrefix("— \(self.origin) ") })
        var signature = try #require(Data(base64Encoded: String(lines[signatureLine].split(separator: " ")[2])))
        signature[10] ^= 1
        lines[signatureLine] = "— \(self.origin) \(signature.base64EncodedString())"
        var forged = batch
        forged.note = lines.joined(separator: "\n")
        #expect(verifier.checkpoint(ifVerified: forged.note) == nil)
        #expect(self.failure(&verifier, forged) == .checkpoint(.badSignature(self.origin)))
        // And the verified note is still remembered.
        self.crypto.checks.store(0, ordering: .relaxed)
        _ = try verifier.verify(batch)
        #expect(self.crypto.checks.load(ordering: .relaxed) == 0)

        // A bigger tree's note is checked in full and remembered instead.
        let bigger = try self.batch(signer: signer, witnesses: [witnesses[0]], size: 151)
        self.crypto.checks.store(0, ordering: .relaxed)
        let below = try verifier.verify(bigger)
        #expect(self.crypto.checks.load(ordering: .relaxed) == 2 && !below.quorumMet)
        #expect(verifier.checkpoint(ifVerified: batch.note) == nil)
        #expect(verifier.checkpoint(ifVerified: bigger.note)?.size == 151)
    }
}
