import ArgumentParser
import AuthlogAccounts
import AuthlogServer
import Foundation

/// `authlog config …`.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check the configuration of authlog serve.",
        subcommands: [ConfigCheckCommand.self]
    )
}

/// `authlog config check`: reads the configuration exactly as `serve` does and prints it with the source of
/// every value; needs no database.
struct ConfigCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Print the effective configuration, with where each value comes from, or what is wrong with it.",
        discussion: """
            Reads the file given with --config and the environment as serve does (docs/configuration.md, \
            "Strict keys and the environment"), and resolves the settings serve resolves before it opens the \
            database. Prints one line per member (value and source: default, file or environment), secrets \
            masked, and exits 0; a configuration serve would refuse is named in one sentence and exits 2.
            """
    )

    @Option(name: .long, help: ArgumentHelp("The configuration file.", valueName: "file"))
    var config: String?

    func run() throws {
        let loaded = try loadConfigurationWithSources(self.config)
        do {
            try Self.resolve(loaded.configuration)
        } catch {
            printError("\(error)")
            throw ExitCode(2)
        }
        let rows = loaded.effectiveMembers.map { [$0.path.description, $0.value, $0.source.description] }
        print(TextTable.render(header: ["MEMBER", "VALUE", "SOURCE"], rows: rows), terminator: "")
    }

    /// Resolves the settings `serve` checks before it opens the database, so that a value out of range is
    /// refused here as there.
    static func resolve(_ configuration: ServerConfiguration) throws {
        _ = try ServiceSettings(configuration: configuration)
        _ = try RateLimitPolicy(configuration: configuration)
        let checkpoints = try CheckpointSettings(
            configuration: configuration,
            environment: ProcessInfo.processInfo.environment
        )
        _ = try WitnessSettings(configuration: configuration, checkpointKey: checkpoints.signer?.verifier)
        _ = try TrustedProxies(configuration.trustedProxies ?? [])
        _ = try AccountComponents.alertSettings(of: configuration)
        try AccountComponents.checkDPoP(of: configuration)
        _ = try AccountComponents.placeLookup(of: configuration)
    }
}
