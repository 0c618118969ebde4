import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

/// `authlog verify --witness-policy` and the policy's `log` lines and `quorum none`: a policy that lists logs must
/// list the checkpoint key (else exit 2, naming both), without a key of its own verify checks the stored notes
/// with the policy's log keys, and under `quorum none` a log without witnesses is witnessed (exit 0, not 5).
@Suite(.enabled(if: TestDatabase.isAvailable))
struct VerifyWitnessPolicyCommandTests {
    @Test func theLogLinesMustNameTheCheckpointKeyAndQuorumNoneNeedsNoCosignature() async throws {
        let database = try await TestDatabase.make()
        let (keys, config) = try await checkpointKeyConfiguration(named: "verify-policy")
        let other = try await checkpointKeyConfiguration(named: "verify-policy-other")
        defer {
            try? FileManager.default.removeItem(atPath: keys)
            try? FileManager.default.removeItem(atPath: other.directory)
        }
        func verifierKey(_ directory: String) throws -> String {
            try String(contentsOfFile: "\(directory)/checkpoint.vkey", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let own = try verifierKey(keys)
        let foreign = try verifierKey(other.directory)
        var traffic = TrafficGenerator(seed: 91)
        let appended = try await CLIProcess.run(
            ["append"],
            input: jsonLines(traffic.events(count: 9)),
            databaseURL: database.conninfo
        )
        #expect(appended.status == 0, "\(appended.stderr)")
        let signed = try await CLIProcess.run(["checkpoint", "--config", config], databaseURL: database.conninfo)
        #expect(signed.status == 0, "\(signed.stderr)")
        func policy(_ text: String) throws -> String {
            let file = "\(keys)/policy-\(UUID().uuidString).txt"
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            return file
        }
        func verify(_ arguments: [String]) async throws -> CLIProcess.Output {
            try await CLIProcess.run(["verify"] + arguments, databaseURL: database.conninfo)
        }

        let none = try policy("log \(own)\nquorum none\n")
        let witnessed = try await verify(["--config", config, "--witness-policy", none])
        #expect(witnessed.status == 0, "\(witnessed.stdout)\(witnessed.stderr)")
        let verdict = witnessed.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(verdict.hasPrefix("witnessed: the checkpoint of "), "\(witnessed.stdout)")
        #expect(verdict.hasSuffix(" needs no cosignature (quorum none); it is the latest checkpoint"))

        let ownID = own.split(separator: "+").prefix(2).joined(separator: "+")
        let foreignID = foreign.split(separator: "+").prefix(2).joined(separator: "+")
        let elsewhere = try policy("log \(foreign)\nquorum none\n")
        let refused = try await verify(["--config", config, "--witness-policy", elsewhere])
        #expect(refused.status == 2, "\(refused.stdout)\(refused.stderr)")
        #expect(
            refused.stderr
                == "authlog: \(elsewhere): the policy's log lines list \(foreignID), not the checkpoint key \(ownID) (\(own)): "
                + "its quorum says nothing of this log's checkpoints\n"
        )
        #expect(refused.stdout.isEmpty, "refused before the log is read")
        let both = try policy("log \(foreign)\nlog \(own)\nquorum none\n")
        #expect(try await verify(["--config", config, "--witness-policy", both]).status == 0)

        // Without a key of its own, the policy's log keys check the stored notes: another log's key opens none.
        #expect(try await verify(["--witness-policy", none]).status == 0)
        let unknown = try await verify(["--witness-policy", elsewhere])
        #expect(unknown.status == 4, "\(unknown.stdout)\(unknown.stderr)")
        #expect(unknown.stdout.hasPrefix("log not verified: signed by an unknown key"), "\(unknown.stdout)")
    }
}
