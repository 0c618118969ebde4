import ArgumentParser
import AuthlogServer
import AuthlogStore
import AuthlogTransparency
import Foundation

/// Where the log's checkpoint settings and key come from: `--config` (its `log` section) and
/// `AUTHLOG_CHECKPOINT_KEY` and `log.previous_checkpoint_verifier_keys`, or verifier key files for commands
/// that only check.
struct CheckpointKeyOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The configuration file (its log section).", valueName: "file"))
    var config: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A verifier key file (name+hash+key per line, from `keys generate`) to check signatures with; "
                + "repeat it, or put one key per line, for every key the log was signed with (instead of the "
                + "configured keys).",
            valueName: "file"
        )
    )
    var verifierKey: [String] = []

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

    /// The keys to check checkpoint signatures with: those of the verifier key files, else the configured
    /// signing key's and `log.previous_checkpoint_verifier_keys`; nil when there are none.
    func keyring() throws -> NoteKeyring? {
        guard self.verifierKey.isEmpty else {
            return NoteKeyring(try self.verifierKey.flatMap(Self.verifiers(in:)))
        }
        let keyring = try self.settings().keyring
        return keyring.keys.isEmpty ? nil : keyring
    }

    /// The verifier keys of the file at `path`, one per line (blank lines skipped).
    private static func verifiers(in path: String) throws -> [NoteVerifier] {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 64 * 1024 else {
            printError("cannot read the verifier key \(path) (or it is larger than 64 KiB)")
            throw ExitCode(2)
        }
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).filter {
            !$0.allSatisfy(\.isWhitespace)
        }
        guard !lines.isEmpty else {
            printError("\(path) holds no verifier key")
            throw ExitCode(2)
        }
        return try lines.enumerated().map { number, line in
            do {
                return try NoteVerifier(verifierKey: String(line))
            } catch {
                printError("\(path), line \(number + 1): \(error)")
                throw ExitCode(2)
            }
        }
    }
}
