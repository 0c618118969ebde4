import AuthlogClient
import AuthlogTransparency
import Testing

/// Witness policies in C2SP tlog-policy's text form (c2sp.org/tlog-policy) and in the old form, each refusal
/// with the line and the reason, and quorums evaluated through nested groups.
struct WitnessPolicyTests {
    let crypto = PlatformTransparencyCrypto()
    let witnesses: [CosignatureSigner]
    let log: NoteSigner
    let body = Checkpoint(origin: "policy.test/log", size: 9, root: [UInt8](repeating: 9, count: 32)).body

    init() throws {
        self.witnesses = try (1...6).map {
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

    /// The verifier key of witness `number` (1-based).
    func key(_ number: Int) -> String { self.witnesses[number - 1].verifier.verifierKey }

    func policy(_ text: String) throws(TransparencyError) -> WitnessPolicy {
        try WitnessPolicy(text: text, crypto: self.crypto)
    }

    /// The refusal of `text`, or nil when it parses.
    func refusal(_ text: String) -> String? {
        do {
            _ = try self.policy(text)
            return nil
        } catch {
            #expect(error.code == .invalidPolicy)
            return error.message
        }
    }

    /// The log's note of ``body`` cosigned by the witnesses numbered `numbers`.
    func note(cosignedBy numbers: [Int]) throws -> String {
        try numbers.reduce(try self.log.sign(self.body)) {
            $0 + (try self.witnesses[$1 - 1].cosign(body: self.body, time: 100))
        }
    }

    func met(_ policy: WitnessPolicy, _ numbers: [Int]) throws -> Bool {
        try #require(policy.check(note: try self.note(cosignedBy: numbers))).quorumMet
    }

    @Test func theSpecificationsExampleNestsGroups() throws {
        let policy = try self.policy(
            """
            # The example of c2sp.org/tlog-policy.
            log \(self.log.verifier.verifierKey) https://policy.test/log

            witness X1 \(self.key(1))
            witness X2 \(self.key(2)) https://x2.test/
            \twitness X3   \(self.key(3))\t
            group X-witnesses 2 X1 X2 X3

            witness Y1 \(self.key(4))
            witness Y2 \(self.key(5))
            witness Y3 \(self.key(6))
            group Y-witnesses any Y1 Y2 Y3

            group X-and-Y all X-witnesses Y-witnesses
            quorum X-and-Y

            """
        )
        #expect(policy.logs.map(\.verifier.verifierKey) == [self.log.verifier.verifierKey])
        #expect(policy.logs.first?.url == "https://policy.test/log" && policy.witnesses[1].url == "https://x2.test/")
        #expect(policy.witnesses.map(\.name) == ["X1", "X2", "X3", "Y1", "Y2", "Y3"])
        #expect(policy.quorum.description == "X-and-Y" && policy.minimumCosigners == 3)
        #expect(try policy.logKeyring.open(try self.note(cosignedBy: [])).body == self.body)
        #expect(try self.met(policy, [1, 3, 5]))
        #expect(try self.met(policy, [2, 3, 4, 5, 6]))
        #expect(try !self.met(policy, [1, 4, 5, 6]), "one X witness")
        #expect(try !self.met(policy, [1, 2, 3]), "no Y witness")
        let result = try #require(policy.check(note: try self.note(cosignedBy: [5, 1, 3])))
        #expect(result.cosigned.map(\.name) == ["X1", "X3", "Y2"] && result.cosigned.allSatisfy { $0.time == 100 })
        #expect(result.invalid.isEmpty)
    }

    @Test func allAnyKNoneAndASingleWitness() throws {
        let header = (1...3).map { "witness W\($0) \(self.key($0))" }.joined(separator: "\n")
        let all = try self.policy(header + "\ngroup G all W1 W2 W3\nquorum G\n")
        #expect(try self.met(all, [1, 2, 3]) && !self.met(all, [1, 2]))
        let any = try self.policy(header + "\ngroup G any W1 W2 W3\nquorum G\n")
        #expect(try self.met(any, [3]) && !self.met(any, []) && any.minimumCosigners == 1)
        let two = try self.policy(header + "\ngroup G 2 W1 W2 W3\nquorum G\n")
        #expect(try self.met(two, [1, 3]) && !self.met(two, [2]) && two.minimumCosigners == 2)
        let none = try self.policy(header + "\nquorum none\n")
        #expect(try self.met(none, []) && none.quorum == .none && none.minimumCosigners == 0)
        let single = try self.policy(header + "\nquorum W2\n")
        #expect(try self.met(single, [2]) && !self.met(single, [1, 3]) && single.quorum == .witness("W2"))
        // A cosignature line of W1's name and key ID that does not verify is reported, and does not count.
        var forged = try self.note(cosignedBy: [2])
        let line = try self.witnesses[0].cosign(body: "another body\n", time: 100)
        forged += line
        let result = try #require(any.check(note: forged))
        #expect(result.cosigned.map(\.name) == ["W2"] && result.invalid == ["W1"] && result.quorumMet)
        // Overlapping groups: W1 alone meets "all of (any W1 W2) (any W1 W3)".
        let overlap = try self.policy(header + "\ngroup A any W1 W2\ngroup B any W1 W3\ngroup C all A B\nquorum C\n")
        #expect(try self.met(overlap, [1]) && overlap.minimumCosigners == 1)
    }

    @Test func everyMalformedLineIsRefusedWithItsNumberAndReason() {
        let w1 = "witness W1 \(self.key(1))"
        let cases: [(String, String)] = [
            ("\(w1)\nquorum W2\n", "line 2: the quorum names W2, which is not defined on an earlier line"),
            ("quorum W1\n\(w1)\n", "line 1: the quorum names W1, which is not defined on an earlier line"),
            (
                "\(w1)\ngroup G any W1 W2\nwitness W2 \(self.key(2))\nquorum G\n",
                "line 2: W2 is not defined on an earlier line"
            ),
            ("\(w1)\ngroup G any W1 W1\nquorum G\n", "line 2: W1 is listed twice in the group G"),
            ("\(w1)\ngroup G any W1 none\nquorum G\n", "line 2: none cannot be a member of a group"),
            (
                "\(w1)\ngroup G 0 W1\nquorum G\n",
                "line 2: the group G needs all, any or a k from 1 to 1 (its members), not 0"
            ),
            (
                "\(w1)\ngroup G 2 W1\nquorum G\n",
                "line 2: the group G needs all, any or a k from 1 to 1 (its members), not 2"
            ),
            (
                "\(w1)\ngroup G -1 W1\nquorum G\n",
                "line 2: the group G needs all, any or a k from 1 to 1 (its members), not -1"
            ),
            ("\(w1)\ngroup G any\nquorum G\n", "line 2: expected `group <name> all|any|<k> <name>...`"),
            ("\(w1)\ngroup W1 any W1\n", "line 2: the name W1 is already defined on line 1"),
            ("\(w1)\nwitness W1 \(self.key(2))\n", "line 2: the name W1 is already defined on line 1"),
            ("witness none \(self.key(1))\n", "line 1: none is predefined and cannot be redefined"),
            ("\(w1)\nwitness W2 \(self.key(1))\n", "line 2: the key of W2 is the key of W1 (line 1)"),
            (
                "log \(self.log.verifier.verifierKey)\nlog \(self.log.verifier.verifierKey) https://l.test\n",
                "line 2: the log's key is the key of the log on line 1"
            ),
            ("\(w1)\nquorum W1\nquorum none\n", "line 3: a second quorum line (the first is line 2)"),
            ("\(w1)\nquorum\n", "line 2: expected `quorum <name>`"),
            ("\(w1)\n", "line 2: the policy ends without a `quorum` line"),
            (
                "\(w1)\nwitnesses W2 \(self.key(2))\nquorum W1\n",
                "line 2: unknown keyword `witnesses` (expected log, witness, group or quorum)"
            ),
            ("\(w1)\nquorum W1 # trailing\n", "line 2: expected `quorum <name>`"),
            ("\(w1)\r\nquorum W1\n", "line 1: a carriage return (CRLF line endings are not allowed)"),
            ("\(w1)\nquorum W1\u{1}\n", "line 2: a control character other than tab"),
            (
                "log \(self.key(1))\nquorum none\n",
                "line 1: a verifier key is <name>+<hash>+<base64 key> with an Ed25519 key"
            ),
            (
                "witness W1 \(self.log.verifier.verifierKey)\nquorum none\n",
                "line 1: a cosigner verifier key is <name>+<key ID>+<base64(0x04 ‖ Ed25519 key)>"
            ),
            (
                "witness W1 \(self.key(1)) https://w.test extra\nquorum none\n",
                "line 1: expected `witness <name> <vkey> [<url>]`"
            ),
            ("log\nquorum none\n", "line 1: expected `log <vkey> [<url>]`"),
        ]
        for (text, reason) in cases {
            #expect(self.refusal(text) == reason, "\(text)")
        }
        #expect(
            self.refusal(String(repeating: "#", count: WitnessPolicy.maximumBytes + 1))
                == "the policy is larger than 64 KiB"
        )
    }

    /// tlog-policy asks implementations to support at least 32 logs, witnesses and groups; beyond the limits
    /// here a policy is refused rather than read without bound.
    @Test func theRecommendedLimitsAreSupportedAndAbsurdSizesRefused() throws {
        let keys = try (0...WitnessPolicy.maximumWitnesses).map { _ in
            try CosignatureSigner(name: "w.test/x", key: TestSigningKey(), crypto: self.crypto).verifier.verifierKey
        }
        let logs = try (0...WitnessPolicy.maximumLogs).map { _ in
            try NoteSigner(name: "l.test/x", key: TestSigningKey(), crypto: self.crypto).verifier.verifierKey
        }
        func text(logs logCount: Int, witnesses: Int, groups: Int) -> String {
            var lines = logs.prefix(logCount).map { "log \($0)" }
            lines += keys.prefix(witnesses).enumerated().map { "witness W\($0.offset) \($0.element)" }
            lines += (0..<groups).map { $0 == 0 ? "group G0 any W0" : "group G\($0) all G\($0 - 1)" }
            return (lines + ["quorum \(groups > 0 ? "G\(groups - 1)" : "none")"]).joined(separator: "\n") + "\n"
        }
        let recommended = try self.policy(text(logs: 32, witnesses: 32, groups: 32))
        #expect(recommended.logs.count == 32 && recommended.witnesses.count == 32)
        let largest = try self.policy(
            text(logs: WitnessPolicy.maximumLogs, witnesses: WitnessPolicy.maximumWitnesses, groups: 0)
        )
        #expect(largest.witnesses.count == WitnessPolicy.maximumWitnesses)
        let deepest = try self.policy(text(logs: 0, witnesses: 1, groups: WitnessPolicy.maximumGroups))
        #expect(deepest.minimumCosigners == 1)
        #expect(
            self.refusal(text(logs: WitnessPolicy.maximumLogs + 1, witnesses: 1, groups: 0))
                == "line \(WitnessPolicy.maximumLogs + 1): more than \(WitnessPolicy.maximumLogs) logs"
        )
        #expect(
            self.refusal(text(logs: 0, witnesses: WitnessPolicy.maximumWitnesses + 1, groups: 0))
                == "line \(WitnessPolicy.maximumWitnesses + 1): more than \(WitnessPolicy.maximumWitnesses) witnesses"
        )
        #expect(
            self.refusal(text(logs: 0, witnesses: 1, groups: WitnessPolicy.maximumGroups + 1))
                == "line \(WitnessPolicy.maximumGroups + 2): more than \(WitnessPolicy.maximumGroups) groups"
        )
    }

    /// The old form: `witness <vkey>` lines, an optional `quorum <k>` (all of them by default), `#` comments
    /// anywhere; read as before, its refusals naming their line.
    @Test func theOldFormKeepsWorking() throws {
        let old = try self.policy("# auditors\nwitness \(self.key(1))  # the first\nwitness \(self.key(2))\nquorum 1\n")
        #expect(old.witnesses.map(\.name) == ["witness.test/w1", "witness.test/w2"] && old.logs.isEmpty)
        #expect(old.quorum.description == "1" && old.minimumCosigners == 1)
        #expect(try self.met(old, [2]) && !self.met(old, []))
        let every = try self.policy("witness \(self.key(1))\nwitness \(self.key(2))\n")
        #expect(try every.quorum.description == "2" && self.met(every, [1, 2]) && !self.met(every, [1]))
        #expect(
            self.refusal("witness \(self.key(1))\nquorum 2\n")
                == "line 2: the witness quorum must be between 1 and the number of witnesses"
        )
        #expect(
            self.refusal("witness \(self.key(1))\nwitness \(self.key(1))\n")
                == "line 2: two witnesses of a policy have the same name"
        )
        #expect(
            self.refusal("witness \(self.key(1))\nquorum 1\nquorum 1\n") == "line 3: one `quorum <k>` with a number"
        )
        #expect(
            self.refusal("witness \(self.key(1))\ngroup G any W1\n")
                == "line 2: expected `witness <vkey>` or `quorum <k>`"
        )
        #expect(
            self.refusal("witness \(self.log.verifier.verifierKey)\n")
                == "line 1: a cosigner verifier key is <name>+<key ID>+<base64(0x04 ‖ Ed25519 key)>"
        )
        // Built in code: the same k of n.
        let built = try WitnessPolicy(witnesses: self.witnesses.prefix(3).map(\.verifier), quorum: 2)
        #expect(try built.quorum.description == "2" && self.met(built, [1, 3]) && !self.met(built, [3]))
        #expect(
            throws: TransparencyError(
                .invalidPolicy,
                "the witness quorum must be between 1 and the number of witnesses"
            )
        ) {
            try WitnessPolicy(witnesses: [], quorum: 1)
        }
    }
}
