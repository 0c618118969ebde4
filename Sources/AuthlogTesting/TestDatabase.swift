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

    /// Creates a new database called `authlog_test_<random>`, migrated unless `migrated` is false.
    ///
    /// A migrated database is a copy (`CREATE DATABASE … TEMPLATE`) of one database that this test process
    /// migrated once: copying takes about a third of migrating, and ~110 tests ask for one.
    /// - Throws: ``StoreError`` when no cluster is configured or it cannot be reached.
    public static func make(migrated: Bool = true) async throws -> TestDatabase {
        guard let cluster = Self.clusterConninfo else {
            throw StoreError(.connectionFailed, "AUTHLOG_TEST_DATABASE_URL is not set; run the tests through .ci/run")
        }
        let name = Self.newName(prefix: "authlog_test_")
        let template = migrated ? try await MigratedTemplate.shared.name(in: cluster) : nil
        try await Self.create(name, from: template, in: cluster)
        return TestDatabase(name: name, conninfo: cluster + " dbname=\(name)")
    }

    /// `prefix` and 16 random hexadecimal digits.
    static func newName(prefix: String) -> String {
        prefix + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
    }

    /// Creates database `name`, copied from `template` when one is given.
    ///
    /// PostgreSQL refuses to copy a database that has a session open (55006, `object_in_use`) after waiting 5 s
    /// for it to end. The only session ever opened on the template is the one that migrated it, which ends when
    /// its connection is released; a copy that still meets it tries again.
    static func create(_ name: String, from template: String?, in cluster: String) async throws {
        let admin = try await Connection.connect(cluster)
        let statement = "CREATE DATABASE \(name)" + (template.map { " TEMPLATE \($0)" } ?? "")
        var attempt = 1
        while true {
            do {
                try await admin.execute(SQLQuery(unsafeSQL: statement))
                return
            } catch let error as StoreError where error.sqlState == "55006" && attempt < 3 {
                attempt += 1
            }
        }
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

/// The database that each migrated ``TestDatabase`` of this process is copied from: created and migrated on first
/// use, and never connected to again.
private actor MigratedTemplate {
    static let shared = MigratedTemplate()

    private var made: Task<String, any Error>?

    /// The template's name, made on the first call; a failed attempt is forgotten so that the next call tries again.
    func name(in cluster: String) async throws -> String {
        let task = self.made ?? Task { try await Self.make(in: cluster) }
        self.made = task
        do {
            return try await task.value
        } catch {
            if self.made == task { self.made = nil }
            throw error
        }
    }

    private static func make(in cluster: String) async throws -> String {
        let name = TestDatabase.newName(prefix: "authlog_template_")
        try await TestDatabase.create(name, from: nil, in: cluster)
        try await Migrator().migrate(on: try await Connection.connect(cluster + " dbname=\(name)"))
        return name
    }
}
