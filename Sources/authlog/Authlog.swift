import ArgumentParser
import AuthlogCrypto
import Foundation

/// The `authlog` command line.
@main
struct Authlog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authlog",
        abstract: "Event-sourced sign-in service and tamper-evident audit log.",
        discussion: """
            Every command takes --database-url (else AUTHLOG_DATABASE_URL, else libpq's PG* variables, else a \
            private PostgreSQL cluster under .authlog/ in the current folder, started on demand).
            Exit codes: 0 ok, 1 the check failed, 2 usage, 3 cannot reach the database.
            """,
        version: "0.1.0",
        subcommands: [
            MigrateCommand.self, AppendEventsCommand.self, VerifyCommand.self, CheckpointCommand.self,
            ProveCommand.self, ExportCommand.self, KeysCommand.self, RebuildCommand.self, ReportCommand.self,
            RetentionCommand.self, SessionsCommand.self,
            UsersCommand.self, DatabaseCommand.self, ServeCommand.self, ConfigCommand.self, WitnessCommand.self,
            WitnessAlarmCommand.self,
        ]
    )

    /// Runs the command, mapping usage errors to exit code 2 as docs/cli.md promises.
    static func main() async {
        SHA256.initializeLibrary()
        do {
            var command = try self.parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = self.exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((self.fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            self.exit(withError: error)
        }
    }
}
