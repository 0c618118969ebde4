import ArgumentParser
import AuthlogAccounts
import AuthlogCore
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import Foundation

/// `authlog sessions USER_ID` and `authlog sessions expire`.
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List a user's sessions, or expire sessions past their lifetimes.",
        subcommands: [ListSessionsCommand.self, ExpireSessionsCommand.self],
        defaultSubcommand: ListSessionsCommand.self
    )
}

/// `authlog sessions USER_ID`: the user's sessions as a table, newest first; the read is audited.
struct ListSessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print a user's sessions: id, provider, state, end reason, started, last seen.",
        discussion: "Records audit.accessed (your OS user and host) before printing."
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var replica: ReadReplicaOptions

    @Argument(help: "The user's id.")
    var userID: String

    func run() async throws {
        guard let userID = UUID(uuidString: self.userID) else {
            printError("USER_ID must be a UUID")
            throw ExitCode(2)
        }
        let target = try await self.database.readTarget(self.replica)
        let (_, lag, sessions) = try await target.open { connection, _ in
            try await SessionQueries.sessions(of: userID, on: connection)
        }
        try await AccessRecord.record("sessions user_id=\(userID.lowercased)", lag: lag, conninfo: target.primary)
        let rows = sessions.map {
            [
                $0.sessionID.lowercased, $0.provider, $0.state.rawValue, $0.endReason ?? "-", $0.startedAt.description,
                $0.lastSeenAt.description,
            ]
        }
        print(
            TextTable.render(
                header: ["session", "provider", "state", "end_reason", "started", "last_seen"],
                rows: rows
            ),
            terminator: ""
        )
        if sessions.isEmpty { printError("no sessions for user \(userID.lowercased)") }
    }
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
        let store = PostgresEventStore(pool: pool, authenticator: try eventAuthenticator())
        let sweeper = SessionSweeper(
            store: store,
            expiry: SessionExpiryQueries(pool: store.pool),
            lifetimes: settings.lifetimes
        )
        let expired = try await reportingStoreErrors {
            let expired = try await sweeper.sweep()
            try await store.sealPending()
            return expired
        }
        print("expired \(expired) session\(expired == 1 ? "" : "s")")
    }
}
