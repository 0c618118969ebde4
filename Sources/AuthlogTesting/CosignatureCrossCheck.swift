import AuthlogCore
import AuthlogTransparency
import Foundation

/// `Tests/AuthlogCryptoTests/Python/cosigcheck.py`: a signed note's log signature and witness cosignatures
/// checked with Python's `cryptography`, code nobody at authlog wrote.
public enum CosignatureCrossCheck {
    /// The script, found from this file's place in the checkout.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/AuthlogCryptoTests/Python/cosigcheck.py").standardizedFileURL.path

    /// Whether python3 with `cryptography` is here; under `CI=true` the check runs regardless (and fails
    /// when it is missing).
    public static let isAvailable = PythonModules.areAvailable(["cryptography"])

    /// Checks `note` with the log's verifier key and the witnesses' cosignature keys.
    /// - Returns: the script's exit status (0: every signature verifies) and what it printed.
    /// - Throws: when python3 cannot be started.
    public static func run(note: String, logKey: String, witnessKeys: [String]) async throws -> ChildProcess.Output {
        let request = JSONValue.object([
            ("note", .string(note)), ("log_vkey", .string(logKey)),
            ("witness_vkeys", .array(witnessKeys.map(JSONValue.string))),
        ])
        return try await ChildProcess.run(
            "/usr/bin/env",
            ["python3", self.script],
            input: Data(request.canonicalText.utf8)
        )
    }
}
