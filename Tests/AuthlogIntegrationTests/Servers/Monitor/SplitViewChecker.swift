import AuthlogCore
import AuthlogTesting
import Foundation

/// Tests/GoCheckers/splitviewcheck, built once per test with Debian's Go packages, offline: Go's `sumdb/note`
/// opens the two notes of a split-view alarm's evidence text under the log's verifier key, and `sumdb/tlog`
/// decides whether one log could have signed both (the same size with two roots, or `tlog.CheckTree` refusing the
/// proof the log served between their sizes). Nobody at authlog wrote that code; it reads only the evidence text
/// the app would publish.
struct SplitViewChecker {
    /// Whether the checker can run here (``GoProgram/isWanted(for:)``).
    static var isWanted: Bool { GoProgram.isWanted(for: "the Go split-view check") }

    /// What the checker printed.
    struct Verdict {
        /// Every line.
        let output: String
        /// The `verdict: …` line.
        var line: String {
            self.output.split(separator: "\n").last { $0.hasPrefix("verdict: ") }.map(String.init) ?? ""
        }
    }

    /// Why the checker refused the evidence (a note that does not verify, say).
    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    let executable: URL

    /// Builds the checker into a temporary directory.
    static func build() async throws -> SplitViewChecker {
        SplitViewChecker(executable: try await GoProgram.build("splitviewcheck"))
    }

    /// Judges the split-view alarm's `evidence` text (``SplitViewAlarm/evidence``) under `verifierKey`.
    func check(verifierKey: String, evidence: String) async throws -> Verdict {
        let input = JSONValue.object([("verifier_key", .string(verifierKey)), ("evidence", .string(evidence))])
        let result = try await ChildProcess.run(
            self.executable.path,
            [],
            in: self.executable.deletingLastPathComponent(),
            input: Data(input.canonicalBytes)
        )
        guard result.status == 0 else { throw Refusal(description: "splitviewcheck refused: \(result.stderr)") }
        return Verdict(output: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
