import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

@Suite(.enabled(if: TestDatabase.isAvailable))
struct VerifyAndRebuildCommandTests {
    @Test func verifyExitsOneAndNamesTheTamperedPosition() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 21)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        try await store.append(AppendCommand(events: traffic.events(count: 100)))
        try await store.sealPending()
        #expect(try await CLIProcess.run(["verify"], databaseURL: database.conninfo).status == 0)
        try await database.connect().execute(
            """
            BEGIN; ALTER TABLE authlog.event_records DISABLE TRIGGER USER;
            UPDATE authlog.event_records SET occurred_at = occurred_at + interval '1 second'
            WHERE event_id = (SELECT event_id FROM authlog.log_leaves WHERE position = 42);
            ALTER TABLE authlog.event_records ENABLE TRIGGER USER; COMMIT
            """
        )
        let output = try await CLIProcess.run(["verify"], databaseURL: database.conninfo)
        #expect(output.status == 1)
        #expect(output.stdout == "log broken at position 42: edited: the event's contents do not match its digest\n")
        // The evidence page over the same log is still written, says so, and exits 1 like verify.
        let since = "--since=2000-01-01"
        let page = try await CLIProcess.run(["report", since, "--format", "html"], databaseURL: database.conninfo)
        #expect(page.status == 1, "\(page.stderr)")
        #expect(page.stdout.hasPrefix("<!DOCTYPE html>") && page.stdout.contains("log broken at position 42"))
        #expect(
            page.stderr.contains(
                "the log did not verify: log broken at position 42: edited: the event's contents do not match its "
                    + "digest (the page is written and says so)"
            ),
            "\(page.stderr)"
        )
    }

    /// A long run shows its position, rate and time left on standard error when that is a terminal (here a
    /// pseudo-terminal made by util-linux's `script`), and prints nothing extra when it is not.
    @Test func longRunsShowProgressOnATerminalAndNothingExtraOtherwise() async throws {
        let database = try await TestDatabase.make()
        try await SyntheticFailures.fill(conninfo: database.conninfo, count: 60_000)
        let piped = try await CLIProcess.run(["export"], databaseURL: database.conninfo)
        #expect(piped.status == 0)
        #expect(
            piped.stderr.hasPrefix("authlog: next: 600") && piped.stderr.split(separator: "\n").count == 1,
            "nothing but the cursor when standard error is not a terminal: \(piped.stderr)"
        )

        var environment = ProcessInfo.processInfo.environment
        environment["AUTHLOG_DATABASE_URL"] = database.conninfo
        let script = try await ChildProcess.run(
            "/usr/bin/script",
            ["-qfec", "'\(CLIProcess.executable)' export > /dev/null", "/dev/null"],
            environment: environment
        )
        let terminal = script.stdout
        #expect(script.status == 0, "\(terminal)")
        #expect(terminal.contains(" of 600"), "\(terminal.suffix(300))")
        #expect(terminal.contains(" events/s"))
        #expect(terminal.contains("left"))
        #expect(terminal.contains("next: 600"))
    }

    @Test func rebuildCheckExitsOneOnADifferenceAndRebuildRepairsIt() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 22)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        try await store.append(AppendCommand(events: traffic.events(count: 500)))
        try await store.sealPending()
        let clean = try await CLIProcess.run(["rebuild", "--check"], databaseURL: database.conninfo)
        #expect(clean.status == 0)
        #expect(clean.stdout == "projections match the events\n")
        try await database.connect().execute(
            "UPDATE authlog.signins_daily SET signins = signins + 1 WHERE provider = 'apple'"
        )
        let dirty = try await CLIProcess.run(["rebuild", "--check"], databaseURL: database.conninfo)
        #expect(dirty.status == 1)
        #expect(dirty.stdout.hasPrefix("signins_daily: "))
        #expect(dirty.stdout.contains("live only:"))
        let repaired = try await CLIProcess.run(["rebuild"], databaseURL: database.conninfo)
        #expect(repaired.status == 0)
        #expect(try await CLIProcess.run(["rebuild", "--check"], databaseURL: database.conninfo).status == 0)
    }

    @Test func anUnmigratedDatabaseIsRefusedAndAnUnreachableOneExitsThree() async throws {
        let database = try await TestDatabase.make(migrated: false)
        let unmigrated = try await CLIProcess.run(["verify"], databaseURL: database.conninfo)
        #expect(unmigrated.status == 1)
        #expect(unmigrated.stderr.contains("run `authlog migrate` first"))
        let migrate = try await CLIProcess.run(["migrate"], databaseURL: database.conninfo)
        #expect(migrate.stdout.contains("applied 0001_create_events"))
        let again = try await CLIProcess.run(["migrate"], databaseURL: database.conninfo)
        #expect(again.stdout == "schema is up to date\n")
        let unreachable = try await CLIProcess.run(
            ["verify"],
            databaseURL: "host=/nonexistent port=1 connect_timeout=1"
        )
        #expect(unreachable.status == 3)
    }
}
