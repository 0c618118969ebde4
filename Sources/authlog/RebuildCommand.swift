import ArgumentParser
import AuthlogStore

/// `authlog rebuild [--check]`.
struct RebuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Replay all events into fresh projections; --check only compares them with the live ones."
    )

    @Flag(help: "Compare the rebuilt projections with the live ones and exit 1 when they differ.")
    var check = false

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let connection = try await self.database.connect()
        let progress = try await ProgressLine.overLog(label: "replayed", on: connection)
        let rebuilder = ProjectionRebuilder(authenticator: try eventAuthenticator())
        let differences = try await reportingStoreErrors {
            self.check
                ? try await rebuilder.check(on: connection) { progress.update($0) }
                : try await rebuilder.rebuild(on: connection) { progress.update($0) }
        }
        progress.finish()
        for difference in differences {
            print("\(difference.table): \(difference.count) row(s) differ")
            for row in difference.onlyLive { print("  live only:    \(row)") }
            for row in difference.onlyRebuilt { print("  rebuilt only: \(row)") }
        }
        if self.check {
            if differences.isEmpty {
                print("projections match the events")
            } else {
                throw ExitCode(1)
            }
        } else {
            print(
                differences.isEmpty ? "projections rebuilt; they already matched" : "projections rebuilt and repaired"
            )
        }
    }
}
