import ArgumentParser
import AuthlogServer
import AuthlogStore
import Foundation

/// Where the log's checkpoint settings and key come from: `--config` (its `log` section) and
/// `AUTHLOG_CHECKPOINT_KEY`, or a verifier key file for commands that only check.
struct CheckpointKeyOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The configuration file (its log section).", valueName: "file"))
    var config: String?

    @Option(
        name: .long,
        help: ArgumentHelp("A verifier key file (name+hash+key, from `keys generate`) to check signatures with.")
    )
    var verifierKey: String?

    /// The resolved settings; a bad one is reported and exits 2.
    func settings() throws -> CheckpointSettings {
        let configuration = try loadConfiguration(self.config)
        do {
            return try CheckpointSettings(
                configuration: configuration,
                environment: ProcessInfo.processInfo.environment
            )
        } catch {
            printError("\(error)")
            throw ExitCode(2)
        }
    }

    /// The key to check checkpoint signatures with: the verifier key file, else the configured signing key's.
    func verifier() throws -> NoteVerifier? {
        if let path = self.verifierKey {
            guard let data = FileManager.default.contents(atPath: path) else {
                printError("cannot read the verifier key \(path)")
                throw ExitCode(2)
            }
            do {
                return try NoteVerifier(verifierKey: String(decoding: data, as: UTF8.self))
            } catch {
                printError("\(path): \(error)")
                throw ExitCode(2)
            }
        }
        return try self.settings().signer?.verifier
    }
}
