import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// `authlog migrate` run by a role that lacks a privilege: one sentence naming it, no SQLSTATE dump.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct MigrateCommandTests {
    @Test func migrateWithoutCreateRoleSaysSoInOneSentence() async throws {
        // A fresh cluster: the shared one has the cluster-wide roles authlog_app and authlog_reader already.
        let cluster = try await PrivateCluster.start(migrated: false)
        defer { cluster.remove() }
        try await Connection.connect(cluster.conninfo).execute(
            "CREATE ROLE migrator LOGIN; GRANT CREATE ON DATABASE authlog TO migrator"
        )
        let run = try await CLIProcess.run(["migrate"], databaseURL: cluster.conninfo + " user=migrator")
        #expect(run.status == 1)
        #expect(
            run.stderr == "authlog: authlog migrate needs the CREATEROLE privilege to create the roles authlog_app and "
                + "authlog_reader (or create them first with deploy/roles.sql)\n"
        )
        #expect(!run.stderr.contains("SQLSTATE"))

        // Once the roles exist (deploy/roles.sql creates them), the same role migrates without CREATEROLE.
        try await Connection.connect(cluster.conninfo).execute(
            "CREATE ROLE authlog_app NOLOGIN; CREATE ROLE authlog_reader NOLOGIN"
        )
        let again = try await CLIProcess.run(["migrate"], databaseURL: cluster.conninfo + " user=migrator")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("applied 0001_create_events"))
    }
}
