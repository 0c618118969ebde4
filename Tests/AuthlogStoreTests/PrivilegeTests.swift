import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

@Suite(.enabled(if: TestDatabase.isAvailable))
struct PrivilegeTests {
    /// A login role that is a member of `group`, so the test can connect with exactly that group's rights.
    private func loginRole(in group: String, on database: TestDatabase) async throws -> String {
        let name = "login_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        try await database.connect().execute(SQLQuery(unsafeSQL: "CREATE ROLE \(name) LOGIN IN ROLE \(group)"))
        return String(name)
    }

    @Test func theAppRoleCanAppendButNeverChangeEvents() async throws {
        let database = try await TestDatabase.make()
        let role = try await self.loginRole(in: "authlog_app", on: database)
        let store = EventStore(pool: ConnectionPool(conninfo: database.conninfo(asUser: role)))
        try await store.append(failedSignin())
        let app = try await Connection.connect(database.conninfo(asUser: role))
        #expect(try await app.query("SELECT count(*) FROM authlog.events").first?.decode(Int.self, at: 0) == 1)
        for statement in [
            "UPDATE authlog.events SET reason = 'x'", "DELETE FROM authlog.events", "TRUNCATE authlog.events",
        ] {
            let error = await #expect(throws: StoreError.self) { try await app.execute(SQLQuery(unsafeSQL: statement)) }
            #expect(error?.sqlState == "42501", "\(statement) must be refused for lack of privilege")
        }
        #expect(try await positions(in: database) == [1])
    }

    @Test func theTriggerRefusesChangesEvenForTheOwner() async throws {
        let database = try await TestDatabase.make()
        let store = EventStore(pool: ConnectionPool(conninfo: database.conninfo))
        try await store.append(failedSignin())
        let owner = try await database.connect()
        for statement in [
            "UPDATE authlog.events SET reason = 'x'", "DELETE FROM authlog.events", "TRUNCATE authlog.events",
        ] {
            let error = await #expect(throws: StoreError.self) { try await owner.execute(SQLQuery(unsafeSQL: statement)) }
            #expect(error?.message.contains("append-only") == true)
        }
        #expect(try await positions(in: database) == [1])
    }

    @Test func theReaderRoleSeesDashboardViewsOnly() async throws {
        let database = try await TestDatabase.make()
        let role = try await self.loginRole(in: "authlog_reader", on: database)
        let reader = try await Connection.connect(database.conninfo(asUser: role))
        try await reader.query("SELECT * FROM dashboard.signins_by_provider")
        try await reader.query("SELECT * FROM dashboard.active_sessions")
        let error = await #expect(throws: StoreError.self) { try await reader.query("SELECT * FROM authlog.events") }
        #expect(error?.sqlState == "42501")
    }
}
