import AuthlogCore
import AuthlogCrypto
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

    /// Without the event key, `verify` checks everything else, names an event without a MAC after one with (the
    /// `unauthenticated: …` verdict needs no key), and otherwise says plainly that the MACs were not checked, with
    /// exit 6; its read cannot be recorded (only a process with the key may append) and it says so. Whenever no
    /// note kept outside covers the last events, a second line says a truncation of them would not be seen.
    @Test func verifyWithoutTheEventKeyChecksEverythingElseAndSaysSo() async throws {
        let database = try await TestDatabase.make()
        let bytes = try SecureRandom.bytes(count: 32)
        let store = PostgresEventStore(
            pool: ConnectionPool(conninfo: database.conninfo),
            authenticator: try EventAuthenticator(key: bytes)
        )
        var traffic = TrafficGenerator(seed: 66)
        try await store.append(AppendCommand(events: traffic.events(count: 40)))
        try await store.sealPending()
        let head = try await EventReader().head(on: database.connect()).size
        let keyed = ["AUTHLOG_EVENT_KEY": Base64URL.encode(bytes)]

        let keyless = try await CLIProcess.run(["verify"], databaseURL: database.conninfo)
        #expect(keyless.status == 6, "\(keyless.stdout)\(keyless.stderr)")
        let lines = keyless.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(keyless.stdout)")
        #expect(lines.first?.hasPrefix("log intact: \(head) events, root ") == true)
        #expect(lines.first?.hasSuffix("event MACs not checked: no event key)") == true, "\(keyless.stdout)")
        #expect(
            lines.dropFirst().first
                == "not covered: no note kept outside covers positions 1…\(head), so a truncation of them would not be "
                + "seen (keep notes with --checkpoint-dir, or give a witness's cosigned checkpoint with --checkpoint)"
        )
        #expect(lines.last?.hasPrefix("MACs not checked: this process has no event key (AUTHLOG_EVENT_KEY)") == true)
        #expect(keyless.stderr.contains("this verification is not recorded"), "\(keyless.stderr)")

        let accessed = "SELECT count(*) FROM authlog.event_records WHERE type = 'audit.accessed'"
        let before = try await database.scalar(SQLQuery(unsafeSQL: accessed))
        #expect(try await EventReader().head(on: database.connect()).size == head, "the keyless one appended nothing")
        let withKey = try await CLIProcess.run(["verify"], databaseURL: database.conninfo, environment: keyed)
        #expect(withKey.status == 0, "\(withKey.stdout)\(withKey.stderr)")
        #expect(!withKey.stdout.contains("MACs not checked") && withKey.stdout.contains("\nnot covered: "))
        #expect(try await database.scalar(SQLQuery(unsafeSQL: accessed)) == before + 1, "the keyed one is recorded")

        // An event stripped of its MAC after events that carry one: named without the key.
        try await database.connect().execute(
            """
            BEGIN; ALTER TABLE authlog.event_records DISABLE TRIGGER USER;
            UPDATE authlog.event_records SET mac = NULL
            WHERE event_id = (SELECT event_id FROM authlog.log_leaves WHERE position = 30);
            ALTER TABLE authlog.event_records ENABLE TRIGGER USER; COMMIT
            """
        )
        let stripped = try await CLIProcess.run(["verify"], databaseURL: database.conninfo)
        #expect(stripped.status == 1)
        #expect(
            stripped.stdout
                == "log broken at position 30: unauthenticated: the event has no MAC though events before it carry "
                + "one (forged, or written without the event key)\n"
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
