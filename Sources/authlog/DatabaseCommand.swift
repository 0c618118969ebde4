import ArgumentParser
import AuthlogStore
import Foundation

/// `authlog db …`: the embedded cluster.
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Manage the embedded PostgreSQL cluster under .authlog/.",
        subcommands: [Stop.self, Start.self])

    /// `authlog db start`.
    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start (or reuse) the embedded cluster, migrate it and print its conninfo.")

        func run() async throws {
            let directory = FileManager.default.currentDirectoryPath + "/.authlog"
            let conninfo = try await reportingStoreErrors { try await EmbeddedPostgres(directory: directory).start() }
            let connection = try await reportingStoreErrors { try await Connection.connect(conninfo) }
            try await reportingStoreErrors { _ = try await Migrator().migrate(on: connection) }
            print(conninfo)
        }
    }

    /// `authlog db stop`.
    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the embedded cluster cleanly.")

        func run() async throws {
            let directory = FileManager.default.currentDirectoryPath + "/.authlog"
            let stopped = try await reportingStoreErrors { try EmbeddedPostgres(directory: directory).stop() }
            print(stopped ? "embedded PostgreSQL stopped" : "embedded PostgreSQL was not running")
        }
    }
}
