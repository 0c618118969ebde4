import AuthlogPostgres
import AuthlogStore
import Foundation

extension TestDatabase {
    /// A new database holding what this one holds now, while its server keeps running: `pg_dump` (one consistent
    /// snapshot) restored with `psql` into a new empty database of the same cluster. A test that shows one user
    /// a second history starts the second server on such a copy, as an operator who forks the log would.
    /// - Throws: ``StoreError`` when no cluster is configured, or when the dump or the restore fails.
    public func copy() async throws -> TestDatabase {
        guard let cluster = Self.clusterConninfo else {
            throw StoreError(.connectionFailed, "AUTHLOG_TEST_DATABASE_URL is not set; run the tests through .ci/run")
        }
        let name = Self.newName(prefix: "authlog_copy_")
        try await Self.create(name, from: nil, in: cluster)
        let copy = TestDatabase(name: name, conninfo: cluster + " dbname=\(name)")
        let dump = try await ChildProcess.run(
            Self.clientProgram("pg_dump"),
            ["--no-owner", "--no-privileges", "--dbname", self.conninfo]
        )
        guard dump.status == 0 else { throw StoreError(.connectionFailed, "pg_dump failed: \(dump.stderr)") }
        let restore = try await ChildProcess.run(
            Self.clientProgram("psql"),
            ["--quiet", "--no-psqlrc", "--set", "ON_ERROR_STOP=1", "--dbname", copy.conninfo],
            input: Data(dump.stdout.utf8)
        )
        guard restore.status == 0 else { throw StoreError(.connectionFailed, "psql failed: \(restore.stderr)") }
        return copy
    }

    /// `name` in the cluster's own `bin` directory (`AUTHLOG_TEST_PG_BIN`, exported by .ci/test-postgres), so the
    /// client's version is the server's; else the one on the `PATH`'s usual places.
    private static func clientProgram(_ name: String) -> String {
        let folders = [ProcessInfo.processInfo.environment["AUTHLOG_TEST_PG_BIN"], "/usr/bin"].compactMap { $0 }
        return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? "/usr/bin/\(name)"
    }
}
