import AuthlogPostgres
import AuthlogStore
import Foundation

/// A fresh, migrated database in the benchmark cluster, so every measurement starts from empty tables.
struct BenchDatabase {
    let conninfo: String

    static func make(in cluster: String) async throws -> BenchDatabase {
        let name = "authlog_bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        try await Connection.connect(cluster).execute(SQLQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        let database = BenchDatabase(conninfo: cluster + " dbname=\(name)")
        try await Migrator().migrate(on: try await Connection.connect(database.conninfo))
        return database
    }
}
