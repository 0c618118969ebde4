import ArgumentParser
import AuthlogStore

/// `authlog migrate`.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or upgrade the database schema; running it again changes nothing."
    )

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let connection = try await self.database.connect(migrating: true)
        let applied = try await reportingStoreErrors { try await Migrator().migrate(on: connection) }
        if applied.isEmpty {
            print("schema is up to date")
        } else {
            for migration in applied {
                print("applied \(String(format: "%04d", migration.version))_\(migration.name)")
            }
        }
    }
}
