import AuthlogClient
import AuthlogTransparency
import Foundation
import Testing

/// `cosignature/v1` lines (C2SP tlog-cosignature): written, read back with their time, and refused when they
/// are another witness's, another note's or altered.
struct CosignatureTests {
    let crypto = PlatformTransparencyCrypto()

    @Test func aCosignatureVerifiesForItsNoteAndTimeOnly() throws {
        let witness = try CosignatureSigner(name: "witness.test/w1", key: TestSigningKey(), crypto: self.crypto)
        let body = Checkpoint(origin: "o.test/log", size: 3, root: self.crypto.sha256([3])).body
        let line = try witness.cosign(body: body, time: 1_795_600_000)
        let signature = try #require(NoteText.signature(Substring(line.dropLast())))
        let verifier = try CosignatureVerifier(verifierKey: witness.verifier.verifierKey, crypto: self.crypto)
        #expect(verifier.keyID == witness.verifier.keyID && verifier.matches(signature))
        #expect(verifier.timestamp(of: signature, body: body) == 1_795_600_000)
        #expect(verifier.timestamp(of: signature, body: body.replacingOccurrences(of: "\n3\n", with: "\n4\n")) == nil)
        var altered = signature
        altered.blob[11] ^= 1
        #expect(verifier.timestamp(of: altered, body: body) == nil, "another time")
        let other = try CosignatureSigner(name: "witness.test/w1", key: TestSigningKey(), crypto: self.crypto)
        #expect(!other.verifier.matches(signature) && other.verifier.timestamp(of: signature, body: body) == nil)
        #expect(
            Cosignature.keyID(name: witness.name, publicKey: witness.verifier.publicKey, crypto: self.crypto)
                == Array(
                    self.crypto.sha256(Array("witness.test/w1\n".utf8) + [4] + witness.verifier.publicKey).prefix(4)
                )
        )
    }

    @Test func verifierKeysOfAnotherTypeOrIDAreRefused() throws {
        let witness = try CosignatureSigner(name: "witness.test/w1", key: TestSigningKey(), crypto: self.crypto)
        let parts = witness.verifier.verifierKey.split(separator: "+", maxSplits: 2).map(String.init)
        let note = try NoteSigner(name: "x.test/log", key: TestSigningKey(), crypto: self.crypto).verifier
        #expect(
            throws: TransparencyError(
                .invalidKey,
                "a cosigner verifier key is <name>+<key ID>+<base64(0x04 ‖ Ed25519 key)>"
            )
        ) { try CosignatureVerifier(verifierKey: note.verifierKey, crypto: self.crypto) }
        #expect(
            throws: TransparencyError(.invalidKey, "the cosigner verifier key's ID does not match its name and key")
        ) { try CosignatureVerifier(verifierKey: "other.test/w+\(parts[1])+\(parts[2])", crypto: self.crypto) }
        #expect(throws: TransparencyError(.invalidKey, "a cosigner name is not empty and has no spaces or +")) {
            try CosignatureSigner(name: "two words", key: TestSigningKey(), crypto: self.crypto)
        }
        #expect(throws: TransparencyError.self) {
            try CosignatureSigner(name: "w.test/broken", key: BrokenSigningKey(), crypto: self.crypto).cosign(
                body: "x\n",
                time: 1
            )
        }
    }
}
