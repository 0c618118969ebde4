import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// `authlog sessions expire` and `authlog users show`.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct AccountCommandTests {
    static let dataKey = Array(repeating: UInt8(9), count: 32)

    /// A configuration file with `members`, in a fresh temporary folder.
    static func configuration(_ members: JSONValue) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("authlog.json").path
        try Data(members.canonicalBytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func sessionsExpireRecordsEachSessionPastItsLifetimeOnce() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 31)
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        try await store.append(AppendCommand(events: traffic.events(count: 300)))
        try await store.sealPending()
        let active = try await database.scalar("SELECT count(*) FROM authlog.sessions WHERE state = 'active'")
        #expect(active > 0)
        let config = try Self.configuration(
            .members([
                "refresh_token": .members([
                    "remember_me_ttl_seconds": .number("1"), "session_ttl_seconds": .number("1"),
                ])
            ])
        )
        try await Task.sleep(for: .milliseconds(1_100))
        let first = try await CLIProcess.run(
            ["sessions", "expire", "--config", config],
            databaseURL: database.conninfo
        )
        #expect(first.status == 0)
        #expect(first.stdout == "expired \(active) session\(active == 1 ? "" : "s")\n")
        let second = try await CLIProcess.run(
            ["sessions", "expire", "--config", config],
            databaseURL: database.conninfo
        )
        #expect(second.stdout == "expired 0 sessions\n")
        #expect(try await database.scalar("SELECT count(*) FROM authlog.sessions WHERE state = 'active'") == 0)
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.events WHERE type = 'session.expired'") >= active
        )
        #expect(try await CLIProcess.run(["verify"], databaseURL: database.conninfo).status == 0)
    }

    @Test func usersShowOpensPersonalDataAndShowsErasedOnceTheKeyIsDestroyed() async throws {
        let database = try await TestDatabase.make()
        let pool = ConnectionPool(conninfo: database.conninfo)
        let store = PostgresEventStore(pool: pool)
        let userID = UUID.version7()
        let vault = PersonalDataVault(dataKey: Self.dataKey, keys: UserKeyStore(pool: pool))
        let sealed = try await vault.sealProfile(displayName: "Jane Appleseed", email: "jane@example.com", for: userID)
        let stream = StreamName(category: "user", id: userID.lowercased)
        try await store.append(
            try EventEnvelope(
                UserRegistered(
                    provider: "apple",
                    subjectHash: String(repeating: "ab", count: 32),
                    sealedProfile: sealed
                ),
                stream: stream,
                provider: "apple",
                userID: userID
            )
        )
        let config = try Self.configuration(.members(["data_key": .string(Base64URL.encode(Self.dataKey))]))
        let shown = try await CLIProcess.run(
            ["users", "show", userID.lowercased, "--config", config],
            databaseURL: database.conninfo
        )
        #expect(shown.status == 0)
        #expect(shown.stdout.contains("display_name     Jane Appleseed"))
        #expect(shown.stdout.contains("identity         apple\n"))

        try await store.append(
            try EventEnvelope(AccountDeleted(providerRevocations: [:]), stream: stream, userID: userID)
        )
        try await UserKeyStore(pool: pool).destroy(for: userID)
        let erased = try await CLIProcess.run(
            ["users", "show", userID.lowercased, "--config", config],
            databaseURL: database.conninfo
        )
        #expect(erased.stdout.contains("status           deleted"))
        #expect(erased.stdout.contains("display_name     [erased]"))
        #expect(erased.stdout.contains("email            [erased]"))
        #expect(erased.stdout.contains("identity         apple (released)"))
        #expect(!erased.stdout.contains("Jane"))
        #expect(try await CLIProcess.run(["users", "show", "not-a-uuid"], databaseURL: database.conninfo).status == 2)
    }
}
