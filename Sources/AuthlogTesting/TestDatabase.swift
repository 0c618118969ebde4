public import AuthlogPostgres
import AuthlogStore
import Foundation

/// A fresh, migrated database per test, created in the PostgreSQL cluster that the test script started.
///
/// The cluster's superuser conninfo (`key=value` form) comes from `AUTHLOG_TEST_DATABASE_URL`. Without it,
/// database tests are skipped, except under `CI=true`, where they fail.
public struct TestDatabase: Sendable {
    /// The conninfo of the cluster, as the test script exported it.
    public static var clusterConninfo: String? {
        let value = ProcessInfo.processInfo.environment["AUTHLOG_TEST_DATABASE_URL"] ?? ""
        return value.isEmpty ? nil : value
    }

    /// Whether database tests should run: a cluster is configured, or CI demands them (and they then fail).
    public static var isAvailable: Bool {
        Self.clusterConninfo != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// The test database's name.
    public let name: String
    /// A superuser conninfo for it.
    public let conninfo: String

    /// Creates and migrates a new database called `authlog_test_<random>`.
    /// - Throws: ``StoreError`` when no cluster is configured or it cannot be reached.
    public static func make(migrated: Bool = true) async throws -> TestDatabase {
        guard let cluster = Self.clusterConninfo else {
            throw StoreError(.connectionFailed, "AUTHLOG_TEST_DATABASE_URL is not set; run the tests through .ci/run")
        }
        let name = "authlog_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let admin = try await Connection.connect(cluster)
        try await admin.execute(SQLQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        let database = TestDatabase(name: String(name), conninfo: cluster + " dbname=\(name)")
        if migrated {
            try await Migrator().migrate(on: try await database.connect())
        }
        return database
    }

    /// Opens a new connection to the test database.
    /// - Throws: ``StoreError`` when it cannot connect.
    public func connect() async throws -> Connection {
        try await Connection.connect(self.conninfo)
    }

    /// A conninfo for the same database as another role.
    public func conninfo(asUser user: String) -> String {
        self.conninfo + " user=\(user)"
    }

    /// Runs one statement and returns the single integer it selects.
    /// - Throws: ``StoreError`` from the server or when the result is not one integer.
    public func scalar(_ query: SQLQuery) async throws -> Int64 {
        let result = try await self.connect().query(query)
        guard let row = result.first else { throw StoreError(.decoding, "no row") }
        return try row.decode(Int64.self, at: 0)
    }
}
