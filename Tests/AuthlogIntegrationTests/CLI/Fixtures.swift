import AuthlogCore
import AuthlogTesting
import Foundation

/// JSON lines for `authlog append`, as another system would send them.
func jsonLines(_ events: [EventEnvelope]) -> String {
    IngestLines.text(events)
}

/// A fresh directory with keys made by `authlog keys generate` for the log `auth.test/log`, and a
/// configuration file whose `log` section signs checkpoints with them.
func checkpointKeyConfiguration(named prefix: String) async throws -> (directory: String, config: String) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID())").path
    let generated = try await CLIProcess.run(
        ["keys", "generate", "--out", directory, "--origin", "auth.test/log"],
        databaseURL: "postgresql:///unused"
    )
    guard generated.status == 0 else { throw CLIFixtureError(message: generated.stderr) }
    let configuration = JSONValue.object([
        (
            "log",
            .object([
                ("origin", .string("auth.test/log")),
                ("checkpoint_key_file", .string("\(directory)/checkpoint-ed25519.pem")),
            ])
        )
    ])
    let config = directory + "/config.json"
    try Data(configuration.canonicalBytes).write(to: URL(fileURLWithPath: config))
    return (directory, config)
}

/// A fixture the command line could not make.
struct CLIFixtureError: Error, CustomStringConvertible {
    let message: String
    var description: String { self.message }
}
