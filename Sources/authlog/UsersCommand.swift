import ArgumentParser
import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import Foundation

/// `authlog users show USER_ID` and `authlog users unlock`.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Look at users and lift identity locks.",
        subcommands: [ShowUserCommand.self, UnlockIdentityCommand.self]
    )
}

/// `authlog users show USER_ID`: a user's state, identities and personal data — `[erased]` once the account
/// was deleted and its key destroyed.
struct ShowUserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a user: status, identities, active sessions and personal data ([erased] after deletion).",
        discussion: """
            Personal data is opened with the data key (AUTHLOG_DATA_KEY, or data_key in the file given with \
            --config); without it the command says so instead of showing it.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The user id.")
    var userID: String

    @Option(name: .long, help: ArgumentHelp("The configuration file (for data_key).", valueName: "file"))
    var config: String?

    func run() async throws {
        guard let id = UUID(uuidString: self.userID) else {
            printError("\(self.userID) is not a user id (a UUID)")
            throw ExitCode(2)
        }
        let configuration = try loadConfiguration(self.config)
        let pool = ConnectionPool(conninfo: try await self.database.conninfo(migrating: false), maximumConnections: 2)
        guard let user = try await reportingStoreErrors({ try await UserRecordQueries(pool: pool).user(id) }) else {
            printError("no user \(id.lowercased)")
            throw ExitCode(1)
        }
        var rows: [(String, String)] = [
            ("user_id", id.lowercased), ("status", user.status), ("created_at", user.createdAt.description),
        ]
        if let deletedAt = user.deletedAt { rows.append(("deleted_at", deletedAt.description)) }
        for identity in user.identities {
            rows.append(("identity", identity.provider + (identity.isReleased ? " (released)" : "")))
        }
        rows.append(("active_sessions", String(user.activeSessions)))
        if let sealed = user.sealedProfile {
            if let key = configuration.dataKey.flatMap(Base64URL.decode), key.count == 32 {
                let vault = PersonalDataVault(dataKey: key, keys: UserKeyStore(pool: pool))
                let profile = try await reportingStoreErrors { try await vault.readableProfile(sealed, for: id) }
                rows += profile.map { ($0.name, $0.value) }
            } else {
                rows.append(("personal_data", "sealed (no data key given)"))
            }
        }
        let width = rows.map(\.0.count).max() ?? 0
        for (name, value) in rows {
            print(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
        }
    }
}
