import ArgumentParser
import AuthlogStore
import Foundation

/// `authlog db …`: the embedded cluster.
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Manage the embedded PostgreSQL cluster under .authlog/.",
        subcommands: [Stop.self, Start.self]
    )

    /// `authlog db start`.
    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start (or reuse) the embedded cluster, migrate it and print its conninfo."
        )

        func run() async throws {
            let directory = FileManager.default.currentDirectoryPath + "/.authlog"
            print(
                try await reportingStoreErrors {
                    try await DatabaseOptions.startEmbedded(in: directory, migrating: true)
                }
            )
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
