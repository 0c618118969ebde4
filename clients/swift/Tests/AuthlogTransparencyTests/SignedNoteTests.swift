import AuthlogClient
import AuthlogTransparency
import Foundation
import Testing

/// Signed notes (C2SP signed-note) and checkpoints (tlog-checkpoint): signed and opened, verifier keys written and
/// read, and each malformed or foreign note refused with its reason.
struct SignedNoteTests {
    let crypto = PlatformTransparencyCrypto()
    let origin = "notes.test/log"

    @Test func aSignedCheckpointOpensWithItsVerifierKeyOnly() throws {
        let signer = try NoteSigner(name: self.origin, key: TestSigningKey(), crypto: self.crypto)
        let checkpoint = Checkpoint(origin: self.origin, size: 42, root: self.crypto.sha256([1]))
        let note = try signer.sign(checkpoint.body)
        let verifier = try NoteVerifier(verifierKey: signer.verifier.verifierKey, crypto: self.crypto)
        #expect(verifier.keyHash == signer.verifier.keyHash && verifier.publicKey == signer.verifier.publicKey)
        #expect(Checkpoint(body: try verifier.open(note)) == checkpoint)
        let stranger = try NoteSigner(name: self.origin, key: TestSigningKey(), crypto: self.crypto)
        #expect(throws: NoteVerifier.Failure.notSignedByKey(self.origin)) { try stranger.verifier.open(note) }
        // The stranger's signature under the real key's hash: a forgery.
        let forged = try #require(NoteText(try stranger.sign(checkpoint.body)))
        let blob = signer.verifier.keyHash + Array(forged.signatures[0].blob.dropFirst(4))
        let forgery = checkpoint.body + "\n\u{2014} \(self.origin) \(Data(blob).base64EncodedString())\n"
        #expect(throws: NoteVerifier.Failure.badSignature(self.origin)) { try verifier.open(forgery) }
        #expect(!verifier.isValidSignature(blob, of: checkpoint.body))
        #expect(verifier.isValidSignature(try #require(NoteText(note)).signatures[0].blob, of: checkpoint.body))
        #expect(throws: NoteVerifier.Failure.malformed("no empty line before the signatures")) {
            try verifier.open(checkpoint.body)
        }
        #expect(throws: NoteVerifier.Failure.malformed("the last signature line has no newline")) {
            try verifier.open(String(note.dropLast()))
        }
        #expect(throws: NoteVerifier.Failure.malformed("a signature line does not start with —")) {
            try verifier.open(checkpoint.body + "\n- x y\n")
        }
    }

    @Test func checkpointBodiesAreParsedExactly() {
        let root = Data(self.crypto.sha256([2])).base64EncodedString()
        #expect(Checkpoint(body: "o\n7\n\(root)\n")?.size == 7)
        #expect(Checkpoint(body: "o\n7\n\(root)\nextension line\n")?.size == 7)
        for body in [
            "o\n7\n\(root)", "\n7\n\(root)\n", "o\n07\n\(root)\n", "o\n-1\n\(root)\n", "o\n7\nAAAA\n", "o\n7\n",
        ] {
            #expect(Checkpoint(body: body) == nil, "\(body)")
        }
    }

    @Test func verifierKeysAndNamesAreCheckedWithExactReasons() throws {
        let signer = try NoteSigner(name: self.origin, key: TestSigningKey(), crypto: self.crypto)
        let key = signer.verifier.verifierKey
        let parts = key.split(separator: "+", maxSplits: 2).map(String.init)
        func refusal(_ text: String) -> String? {
            do {
                _ = try NoteVerifier(verifierKey: text, crypto: self.crypto)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(refusal(key) == nil && refusal(" \(key)\n") == nil)
        #expect(refusal("\(parts[0])+\(parts[1].uppercased())+\(parts[2])") == nil)
        #expect(
            refusal("\(parts[0])+00000000+\(parts[2])") == "the verifier key's hash does not match its name and key"
        )
        #expect(
            refusal("\(parts[0])+\(parts[1])") == "a verifier key is <name>+<hash>+<base64 key> with an Ed25519 key"
        )
        let cosigner = try CosignatureSigner(name: "w.test/1", key: TestSigningKey(), crypto: self.crypto)
        #expect(
            refusal(cosigner.verifier.verifierKey)
                == "a verifier key is <name>+<hash>+<base64 key> with an Ed25519 key",
            "a cosignature key (type 0x04) is not a note key (0x01)"
        )
        for name in ["", "a b", "a+b", "a\nb"] {
            #expect(throws: TransparencyError(.invalidKey, "a note key name is not empty and has no spaces or +")) {
                try NoteSigner(name: name, key: TestSigningKey(), crypto: self.crypto)
            }
        }
        #expect(throws: TransparencyError(.invalidKey, "an Ed25519 public key is 32 bytes")) {
            try NoteVerifier(name: self.origin, publicKey: [1, 2, 3], crypto: self.crypto)
        }
        #expect(throws: TransparencyError.self) {
            try NoteSigner(name: self.origin, key: BrokenSigningKey(), crypto: self.crypto).sign("x\n")
        }
    }

    @Test func aKeyringKeepsEachKeyOnceAndSaysWhoSignedANoteItCannotOpen() throws {
        let first = try NoteSigner(name: self.origin, key: TestSigningKey(), crypto: self.crypto)
        let second = try NoteSigner(name: self.origin, key: TestSigningKey(), crypto: self.crypto)
        let keyring = NoteKeyring([first.verifier, second.verifier, first.verifier])
        #expect(keyring.keys.map(\.verifierKey) == [first.verifier.verifierKey, second.verifier.verifierKey])
        let note = try second.sign("\(self.origin)\n1\n\(Data(count: 32).base64EncodedString())\n")
        let opened = try keyring.open(note)
        #expect(opened.keyID == NoteKeyring.keyID(of: second.verifier))
        #expect(opened.verifierKey == second.verifier.verifierKey)
        #expect(throws: NoteVerifier.Failure.unknownKey(NoteKeyring.keyID(of: second.verifier))) {
            try NoteKeyring([first.verifier]).open(note)
        }
    }

    /// The log's own signature is read by the same rules as the witnesses' (``NoteText``): 64 signature lines at
    /// most (each line of the key's hash would cost a signature check), no control character, one space between
    /// fields, at least one signature line.
    @Test func aNoteOpensOnlyUnderNoteTextsRules() throws {
        let signer = try NoteSigner(name: self.origin, key: TestSigningKey(), crypto: self.crypto)
        let body = Checkpoint(origin: self.origin, size: 3, root: self.crypto.sha256([3])).body
        let note = try signer.sign(body)
        let line = try #require(NoteText(note)?.signatures.first?.line)
        let stranger = try NoteSigner(name: "other.test/log", key: TestSigningKey(), crypto: self.crypto)
        let other = try #require(NoteText(try stranger.sign(body))?.signatures.first?.line)
        let verifier = signer.verifier
        let most = body + "\n" + String(repeating: other + "\n", count: NoteText.maximumSignatures - 1) + line + "\n"
        #expect(try verifier.open(most) == body, "64 lines, the key's the last")
        #expect(try NoteKeyring([verifier]).open(most).body == body)
        let tooMany = body + "\n" + String(repeating: line + "\n", count: NoteText.maximumSignatures + 1)
        #expect(throws: NoteVerifier.Failure.malformed("more than 64 signature lines")) { try verifier.open(tooMany) }
        #expect(throws: NoteVerifier.Failure.malformed("more than 64 signature lines")) {
            try NoteKeyring([verifier]).open(tooMany)
        }
        let bell = body.replacingOccurrences(of: "\n3\n", with: "\n3\u{7}\n") + "\n" + line + "\n"
        #expect(throws: NoteVerifier.Failure.malformed("a control character other than newline")) {
            try verifier.open(bell)
        }
        #expect(throws: NoteVerifier.Failure.malformed("a control character other than newline")) {
            try verifier.open(note.replacingOccurrences(of: " ", with: "\t"))
        }
        #expect(throws: NoteVerifier.Failure.malformed("a signature line is not `— name base64`")) {
            try verifier.open(note.replacingOccurrences(of: "\(self.origin) ", with: "\(self.origin)  "))
        }
        #expect(throws: NoteVerifier.Failure.malformed("no signature line")) { try verifier.open(body + "\n") }
    }

    @Test func noteTextSplitsSignatureLinesWithoutCheckingThem() throws {
        let signer = try NoteSigner(name: self.origin, key: TestSigningKey(), crypto: self.crypto)
        let note = try signer.sign("body\n")
        let text = try #require(NoteText(note))
        #expect(text.body == "body\n" && text.signatures.map(\.name) == [self.origin] && text.text == note)
        let line = try #require(text.signatures.first?.line)
        #expect(NoteText("body\n\n" + String(repeating: line + "\n", count: NoteText.maximumSignatures)) != nil)
        #expect(NoteText("body\n\n" + String(repeating: line + "\n", count: NoteText.maximumSignatures + 1)) == nil)
        #expect(NoteText("bo\u{7}dy\n\n\(line)\n") == nil, "a control character")
        #expect(NoteText("body\n\n\(line)") == nil, "no final newline")
        #expect(NoteText("body\n\n— a+b AAAAAAAA\n") == nil, "a + in a key name")
        // Text beyond ASCII, read as UTF-8 bytes: a body with — and é and empty lines of its own (the last empty
        // line splits), and a key name of several bytes a character.
        let wide = try NoteSigner(name: "journal.test/é—log", key: TestSigningKey(), crypto: self.crypto)
        let body = "café — signé\n\nsecond paragraph\n"
        let signed = try wide.sign(body)
        #expect(try wide.verifier.open(signed) == body)
        let parsed = try #require(NoteText(signed))
        #expect(parsed.body == body && parsed.signatures.map(\.name) == ["journal.test/é—log"] && parsed.text == signed)
        #expect(NoteText("body\n\n—  AAAAAAAA\n") == nil, "an empty key name")
        #expect(NoteText("body\n\n— a AAAA AAAA\n") == nil, "two spaces")
        #expect(NoteText("body\n\n—\u{301} a AAAAAAAA\n") == nil, "a combining mark after the dash")
        #expect(NoteText("body\n\n\u{7F}— a AAAAAAAA\n") == nil, "DEL")
    }
}
