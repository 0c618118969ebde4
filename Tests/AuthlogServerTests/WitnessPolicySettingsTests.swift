import AuthlogCore
import AuthlogCrypto
import AuthlogServer
import AuthlogTransparency
import Foundation
import Testing

/// `log.witness_policy`: the server reads its witnesses and quorum from a C2SP tlog-policy file, the same an
/// auditor gives `authlog verify --witness-policy`, and refuses what it cannot submit to.
struct WitnessPolicySettingsTests {
    let witnesses: [CosignatureSigner]
    /// The server's checkpoint key, and another log's.
    let logKey: NoteVerifier
    let otherLogKey: NoteVerifier

    init() throws {
        self.witnesses = try (1...3).map {
            try CosignatureSigner(name: "witness.test/w\($0)", key: try PrivateKey.generate(for: .edDSA))
        }
        self.logKey = try NoteSigner(name: "auth.test/log", key: try PrivateKey.generate(for: .edDSA)).verifier
        self.otherLogKey = try NoteSigner(name: "auth.test/log", key: try PrivateKey.generate(for: .edDSA)).verifier
    }

    /// The settings of a configuration whose `log` holds `members` and, when given, a policy file of `policy`, for
    /// a server whose checkpoint key is `checkpointKey`.
    func settings(
        policy: String?,
        _ members: [(String, JSONValue)] = [],
        checkpointKey: NoteVerifier? = nil
    ) throws -> WitnessSettings {
        var log = members
        let file = NSTemporaryDirectory() + "authlog-policy-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: file) }
        if let policy {
            try policy.write(toFile: file, atomically: true, encoding: .utf8)
            log.append(("witness_policy", .string(file)))
        }
        return try WitnessSettings(
            configuration: try JSONValue.object([("log", .object(log))]).decode(ServerConfiguration.self),
            checkpointKey: checkpointKey
        )
    }

    func refusal(
        policy: String?,
        _ members: [(String, JSONValue)] = [],
        checkpointKey: NoteVerifier? = nil
    ) -> String? {
        do {
            _ = try self.settings(policy: policy, members, checkpointKey: checkpointKey)
            return nil
        } catch {
            return "\(error)".replacingOccurrences(
                of: #"/[^ ]*authlog-policy-[0-9A-F-]*\.txt"#,
                with: "FILE",
                options: .regularExpression
            )
        }
    }

    func key(_ number: Int) -> String { self.witnesses[number - 1].verifier.verifierKey }

    @Test func aPolicyFileGivesTheWitnessesTheirURLsAndTheQuorum() throws {
        let settings = try self.settings(
            policy: """
                witness A \(self.key(1)) https://w1.test/
                witness B \(self.key(2)) http://127.0.0.1:7380
                witness C \(self.key(3)) https://w3.test/prefix
                group AB any A B
                group quorum all AB C
                quorum quorum

                """
        )
        #expect(settings.witnesses.map(\.name) == ["witness.test/w1", "witness.test/w2", "witness.test/w3"])
        #expect(
            settings.witnesses.map(\.addCheckpointURL) == [
                "https://w1.test/add-checkpoint", "http://127.0.0.1:7380/add-checkpoint",
                "https://w3.test/prefix/add-checkpoint",
            ]
        )
        let policy = try #require(settings.policy)
        #expect(policy.minimumCosigners == 2 && policy.quorum.description == "quorum")
    }

    @Test func whatTheServerCannotUseIsRefusedWithTheLine() {
        let w1 = "witness A \(self.key(1)) https://w1.test"
        #expect(
            self.refusal(policy: "\(w1)\nquorum A\n", [("witness_quorum", .number("1"))])
                == "log.witness_policy replaces log.witnesses and log.witness_quorum: give one or the other"
        )
        #expect(
            self.refusal(policy: "witness A \(self.key(1))\nquorum A\n")
                == "log.witness_policy: FILE: the witness A has no URL to submit checkpoints to"
        )
        #expect(
            self.refusal(policy: "witness A \(self.key(1)) ftp://w1.test\nquorum A\n")
                == "log.witness_policy: FILE: the witness A: its URL must be an http(s) URL without a query"
        )
        #expect(
            self.refusal(policy: "\(w1)\ngroup G any A B\nquorum G\n")
                == "log.witness_policy: FILE: line 2: B is not defined on an earlier line"
        )
        #expect(
            self.refusal(policy: nil, [("witness_policy", .string("/nonexistent/policy.txt"))])
                == "log.witness_policy: cannot read /nonexistent/policy.txt (or it is larger than 64 KiB)"
        )
    }

    /// A policy that lists logs must list the server's own checkpoint key: one copied from another log (or kept
    /// from before a key rotation) is refused at start, naming the key to add. A policy without `log` lines, or a
    /// server without a checkpoint key, has nothing to compare.
    @Test func aPolicyWhoseLogLinesLackTheCheckpointKeyIsRefused() throws {
        let witness = "witness A \(self.key(1)) https://w1.test\nquorum A\n"
        let own = "log \(self.logKey.verifierKey)\n"
        let other = "log \(self.otherLogKey.verifierKey)\n"
        #expect(self.refusal(policy: own + witness, checkpointKey: self.logKey) == nil)
        #expect(self.refusal(policy: other + own + witness, checkpointKey: self.logKey) == nil)
        #expect(self.refusal(policy: witness, checkpointKey: self.logKey) == nil, "no log line: nothing to compare")
        #expect(self.refusal(policy: other + witness) == nil, "no checkpoint key: nothing to compare")
        #expect(
            self.refusal(policy: other + witness, checkpointKey: self.logKey)
                == "log.witness_policy: FILE: its log lines do not list this log's checkpoint key "
                + "\(self.logKey.verifierKey) (they list \(self.otherLogKey.verifierKey))"
        )
        let renamed = try NoteVerifier(name: "staging.test/log", publicKey: self.logKey.publicKey, crypto: .openSSL)
        #expect(
            self.refusal(policy: "log \(renamed.verifierKey)\n" + witness, checkpointKey: self.logKey) != nil,
            "the same key under another origin is another log"
        )
    }
}
