import ArgumentParser
import AuthlogCore
import AuthlogServer
import AuthlogStore
import Foundation

/// `authlog sessions expire`.
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "Work on sessions.",
        subcommands: [ExpireSessionsCommand.self]
    )
}

/// `authlog sessions expire`: one run of the sweeper that `serve` runs every minute.
struct ExpireSessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expire",
        abstract: "Record session.expired for every active session past its absolute or idle lifetime.",
        discussion: """
            The lifetimes come from the configuration file given with --config (refresh_token.*; the defaults \
            otherwise). Safe to run while authlog serve sweeps too: each session expires exactly once.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .long, help: ArgumentHelp("The configuration file.", valueName: "file"))
    var config: String?

    func run() async throws {
        let configuration = try loadConfiguration(self.config)
        let settings: ServiceSettings
        do {
            settings = try ServiceSettings(configuration: configuration)
        } catch {
            printError("\(error)")
            throw ExitCode(2)
        }
        let pool = ConnectionPool(conninfo: try await self.database.conninfo(migrating: false), maximumConnections: 2)
        let store = EventStore(pool: pool)
        let sweeper = SessionSweeper(store: store, lifetimes: settings.lifetimes)
        let expired = try await reportingStoreErrors {
            let expired = try await sweeper.sweep()
            try await store.sealPending()
            return expired
        }
        print("expired \(expired) session\(expired == 1 ? "" : "s")")
    }
}
