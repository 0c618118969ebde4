import AuthlogCore
import AuthlogCrypto
import AuthlogStore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

/// A checkpoint key rotated as docs/operations.md says, with the commands an operator runs: `keys generate`
/// for the new key, the old `checkpoint.vkey` in `log.previous_checkpoint_verifier_keys`, `checkpoint` with the
/// new key, and `verify` passing across the rotation and naming the key of each note.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct CheckpointKeyRotationCommandTests {
    private static let origin = "auth.test/log"

    /// A configuration signing with the key in `keys`, notes in `notes`, and `previous` verifier keys.
    private func configuration(keys: String, notes: String, previous: [String]) throws -> String {
        var log: [(name: String, value: JSONValue)] = [
            ("origin", .string(Self.origin)), ("checkpoint_key_file", .string("\(keys)/checkpoint-ed25519.pem")),
            ("checkpoint_directory", .string(notes)),
        ]
        if !previous.isEmpty {
            log.append(("previous_checkpoint_verifier_keys", .array(previous.map(JSONValue.string))))
        }
        let file = "\(keys)/config.json"
        try Data(JSONValue.object([("log", .object(log))]).canonicalBytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    private func generateKeys(_ prefix: String) async throws -> (directory: String, verifierKey: String, keyID: String)
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID())").path
        let generated = try await CLIProcess.run(
            ["keys", "generate", "--out", directory, "--origin", Self.origin],
            databaseURL: "postgresql:///unused"
        )
        #expect(generated.status == 0, "\(generated.stderr)")
        let verifierKey = try String(contentsOfFile: "\(directory)/checkpoint.vkey", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let keyID = verifierKey.split(separator: "+").prefix(2).joined(separator: "+")
        return (directory, verifierKey, keyID)
    }

    @Test func aRotatedCheckpointKeyKeepsVerifyPassingAndNamesEachKey() async throws {
        let database = try await TestDatabase.make()
        let (old, new) = (try await self.generateKeys("rotation-old"), try await self.generateKeys("rotation-new"))
        let notes = new.directory + "/notes"
        let oldConfig = try self.configuration(keys: old.directory, notes: notes, previous: [])
        let newConfig = try self.configuration(keys: new.directory, notes: notes, previous: [old.verifierKey])
        var traffic = TrafficGenerator(seed: 7)
        func appendAndSign(_ config: String) async throws -> CLIProcess.Output {
            let appended = try await CLIProcess.run(
                ["append"],
                input: jsonLines(Array(traffic.events(count: 12).prefix(12))),
                databaseURL: database.conninfo
            )
            #expect(appended.status == 0, "\(appended.stderr)")
            return try await CLIProcess.run(["checkpoint", "--config", config], databaseURL: database.conninfo)
        }
        #expect(try await appendAndSign(oldConfig).status == 0)
        // The new key without the old one refuses to sign over the state the old key signed.
        let unaware = try self.configuration(keys: new.directory, notes: notes, previous: [])
        let refused = try await appendAndSign(unaware)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("not signed by this signer's keys"), "\(refused.stderr)")
        let rotatedConfig = try self.configuration(keys: new.directory, notes: notes, previous: [old.verifierKey])
        #expect(rotatedConfig == newConfig)
        let rotated = try await appendAndSign(newConfig)
        #expect(rotated.status == 0, "\(rotated.stderr)")

        let verified = try await CLIProcess.run(
            ["verify", "--config", newConfig, "--checkpoint-dir", notes],
            databaseURL: database.conninfo
        )
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        #expect(verified.stdout.contains("signed by \(new.keyID): 1 stored and "), "\(verified.stdout)")
        #expect(verified.stdout.contains("; \(old.keyID): 1 stored and \(notes)/checkpoint-"), "\(verified.stdout)")

        // An auditor with both verifier keys gets the same verdict; with only the new one, "unknown key" (4).
        let both = try await CLIProcess.run(
            [
                "verify", "--verifier-key", "\(new.directory)/checkpoint.vkey", "--verifier-key",
                "\(old.directory)/checkpoint.vkey", "--checkpoint-dir", notes,
            ],
            databaseURL: database.conninfo
        )
        #expect(both.status == 0, "\(both.stdout) \(both.stderr)")
        let newOnly = try await CLIProcess.run(
            ["verify", "--verifier-key", "\(new.directory)/checkpoint.vkey", "--checkpoint-dir", notes],
            databaseURL: database.conninfo
        )
        #expect(newOnly.status == 4, "\(newOnly.stdout) \(newOnly.stderr)")
        #expect(
            newOnly.stdout.hasPrefix(
                "log not verified: signed by an unknown key: the stored checkpoint at 12 (\(old.keyID))"
            ),
            "\(newOnly.stdout)"
        )
    }

    @Test func aPreviousKeyOfAnotherLogOrNotAKeyIsRefusedByName() async throws {
        let database = try await TestDatabase.make()
        let keys = try await self.generateKeys("rotation-bad")
        let other = try NoteSigner(name: "other.test/log", key: try PrivateKey.generate(for: .edDSA)).verifier
            .verifierKey
        for (previous, message) in [
            (
                other,
                "log.previous_checkpoint_verifier_keys[0] names the key other.test/log, but the log's origin "
                    + "is auth.test/log"
            ),
            (
                "auth.test/log+00000000+AAAA",
                "log.previous_checkpoint_verifier_keys[0]: not a verifier key (<origin>+<key hash>+<base64 key>, as "
                    + "in checkpoint.vkey)"
            ),
        ] {
            let config = try self.configuration(keys: keys.directory, notes: keys.directory, previous: [previous])
            let output = try await CLIProcess.run(["checkpoint", "--config", config], databaseURL: database.conninfo)
            #expect(output.status == 2)
            #expect(output.stderr.contains(message), "\(output.stderr)")
        }
    }
}
