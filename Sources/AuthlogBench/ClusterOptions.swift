import ArgumentParser
import Foundation

/// The cluster a benchmark measures in: `--database-url`, else `AUTHLOG_TEST_DATABASE_URL` (which
/// `.ci/test-postgres` sets).
struct ClusterOptions: ParsableArguments {
    @Option(help: "Superuser conninfo of the cluster to measure in (key=value form).")
    var databaseURL: String?

    /// The conninfo of the cluster.
    /// - Throws: `ValidationError` when neither is given.
    func cluster() throws -> String {
        guard let cluster = self.databaseURL ?? ProcessInfo.processInfo.environment["AUTHLOG_TEST_DATABASE_URL"] else {
            throw ValidationError("give --database-url or AUTHLOG_TEST_DATABASE_URL")
        }
        return cluster
    }
}
