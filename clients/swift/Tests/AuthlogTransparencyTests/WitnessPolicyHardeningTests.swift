import AuthlogClient
import Foundation
import Testing

@testable import AuthlogTransparency

/// Policies that used to hang or over-count: groups shared by many groups are evaluated once, one key under two
/// names is refused on every path (and never counted twice), and CRLF line endings are named on their line.
struct WitnessPolicyHardeningTests {
    let crypto = PlatformTransparencyCrypto()
    let witnesses: [CosignatureSigner]
    let log: NoteSigner
    let body = Checkpoint(origin: "policy.test/log", size: 9, root: [UInt8](repeating: 9, count: 32)).body

    init() throws {
        self.witnesses = try (1...2).map {
            try CosignatureSigner(
                name: "witness.test/w\($0)",
                key: TestSigningKey(),
                crypto: PlatformTransparencyCrypto()
            )
        }
        self.log = try NoteSigner(
            name: "policy.test/log",
            key: TestSigningKey(),
            crypto: PlatformTransparencyCrypto()
        )
    }

    /// The refusal of `text`, or nil when it parses.
    func refusal(_ text: String) -> String? {
        do {
            _ = try WitnessPolicy(text: text, crypto: self.crypto)
            return nil
        } catch {
            #expect(error.code == .invalidPolicy)
            return error.message
        }
    }

    /// The verifier of witness 1's key under another name.
    func renamedFirstKey() throws -> CosignatureVerifier {
        try CosignatureVerifier(
            name: "witness.test/copy",
            publicKey: self.witnesses[0].verifier.publicKey,
            crypto: self.crypto
        )
    }

    /// `group G(i) all G(i-1) G(i-2)` up to G90 (a Fibonacci-shaped DAG of about 3 KB, fib(90) nodes as a tree),
    /// and `group G(i) all G1 … G(i-1)` up to G100 (2^100 as a tree): each evaluates in one pass.
    @Test func groupsSharedByManyGroupsAreEvaluatedOnce() throws {
        let header =
            "witness A \(self.witnesses[0].verifier.verifierKey)\nwitness B \(self.witnesses[1].verifier.verifierKey)\n"
        var fibonacci = header + "group G1 all A B\ngroup G2 all G1 A\n"
        for index in 3...90 { fibonacci += "group G\(index) all G\(index - 1) G\(index - 2)\n" }
        fibonacci += "quorum G90\n"
        var doubling = header + "group G1 all A B\n"
        for index in 2...100 {
            doubling += "group G\(index) all " + (1..<index).map { "G\($0)" }.joined(separator: " ") + "\n"
        }
        doubling += "quorum G100\n"
        #expect(fibonacci.utf8.count < 4096)
        let clock = ContinuousClock()
        let started = clock.now
        for text in [fibonacci, doubling] {
            let policy = try WitnessPolicy(text: text, crypto: self.crypto)
            #expect(policy.minimumCosigners == 2 && policy.quorum.witnessNames == ["A", "B"])
            #expect(policy.quorum.isMet(by: ["A", "B"]) && !policy.quorum.isMet(by: ["A"]))
            let note = try self.log.sign(self.body) + (try self.witnesses[0].cosign(body: self.body, time: 7))
            #expect(policy.check(note: note)?.quorumMet == false)
        }
        #expect(clock.now - started < .milliseconds(500))
    }

    @Test func oneKeyUnderTwoNamesIsRefusedOnEveryPath() throws {
        let copy = try self.renamedFirstKey()
        let first = self.witnesses[0].verifier
        #expect(
            self.refusal("# auditors\nwitness \(first.verifierKey)\nwitness \(copy.verifierKey)\n")
                == "line 3: the key of witness.test/copy is the key of witness.test/w1 (line 2)"
        )
        #expect(
            throws: TransparencyError(
                .invalidPolicy,
                "the witnesses witness.test/w1 and witness.test/copy have the same key"
            )
        ) {
            try WitnessPolicy(witnesses: [first, self.witnesses[1].verifier, copy], quorum: 2)
        }
        #expect(
            self.refusal("witness X \(first.verifierKey)\nwitness Y \(copy.verifierKey)\ngroup G all X Y\nquorum G\n")
                == "line 2: the key of Y is the key of X (line 1)"
        )
    }

    /// A cosignature does not cover its key's name: a copied line renamed to the second name (its key ID
    /// recomputed) verifies under it. Were such a policy built, the quorum still counts the key once.
    @Test func aCopiedCosignatureUnderASecondNameIsNotCountedTwice() throws {
        let copy = try self.renamedFirstKey()
        let line = try self.witnesses[0].cosign(body: self.body, time: 7)
        let original = try #require(NoteText(try self.log.sign(self.body) + line)?.signatures.last)
        let renamed =
            "\u{2014} \(copy.name) "
            + Data(copy.keyID + original.blob.dropFirst(4)).base64EncodedString() + "\n"
        let note = try self.log.sign(self.body) + line + renamed
        let both = [
            WitnessPolicy.Witness(name: "X", verifier: self.witnesses[0].verifier), .init(name: "Y", verifier: copy),
        ]
        let policy = WitnessPolicy(
            logs: [],
            witnesses: both,
            quorum: .init(
                groups: [.init(name: "G", threshold: 2, members: [.witness("X"), .witness("Y")])],
                root: .group(0)
            )
        )
        #expect(copy.timestamp(of: try #require(NoteText(note)?.signatures.last), body: self.body) == 7)
        let result = try #require(policy.check(note: note))
        #expect(result.cosigned.map(\.name) == ["X"] && !result.quorumMet)
    }

    @Test func crlfLineEndingsAreNamedOnTheirLine() {
        let key = self.witnesses[0].verifier.verifierKey
        #expect(
            self.refusal("# auditors\nwitness X \(key)\r\nquorum X\r\n")
                == "line 2: a carriage return (CRLF line endings are not allowed)"
        )
        #expect(
            self.refusal("witness \(key)\r\n") == "line 1: a carriage return (CRLF line endings are not allowed)"
        )
    }
}
