import AuthlogCore
import AuthlogPostgres
import AuthlogTesting
import Testing

@testable import AuthlogStore

/// A batch alone in its process that finds the sealer idle seals its own events in its own transaction
/// (issue 37: one commit per command where nothing else is waiting), and never ahead of an event queued before it.
@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct WriterSealsWhenIdleTests {
    @Test func aLoneCommandIsSealedByItsOwnCommitWithItsPositionInTheAnswer() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 3))
        for expected in Int64(1)...5 {
            let result = try await store.append(failedSignin(provider: "apple"))
            #expect(result.events.map(\.position) == [expected], "sealed before the answer, without the sealer")
        }
        #expect(try await database.scalar("SELECT count(*) FROM authlog.unsealed_events") == 0)
        #expect(try await positions(in: database) == Array(1...5))
        #expect(
            try await database.scalar("SELECT coalesce(sum(signins), 0) FROM authlog.signins_daily") == 5,
            "its sign-ins counted as the sealer counts them"
        )
        #expect(try await verify(database) == intact(database))
    }

    @Test func aBatchBehindAQueuedEventIsQueuedAndSealedAfterIt() async throws {
        let database = try await TestDatabase.make()
        let connection = try await database.connect()
        // Queued without any sealer running: the batch that follows, on the same stream, finds the queue busy.
        let first = try await self.write(failedSignin(provider: "apple"), sealingWhenIdle: false, on: connection)
        let second = try await self.write(failedSignin(provider: "apple"), sealingWhenIdle: true, on: connection)
        #expect(first.position == nil && second.position == nil)
        #expect(try await database.scalar("SELECT count(*) FROM authlog.unsealed_events") == 2)
        // Another transaction holding the head: the batch does not wait for it, it queues.
        let holder = try await database.connect()
        try await holder.execute("BEGIN; SELECT * FROM authlog.log_head FOR UPDATE")
        let third = try await self.write(failedSignin(provider: "google"), sealingWhenIdle: true, on: connection)
        #expect(third.position == nil)
        try await holder.execute("ROLLBACK")
        let sealer = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 1))
        try await sealer.sealPending()
        // Queue empty, head free: the next batch seals itself after them.
        let fourth = try await self.write(failedSignin(provider: "apple"), sealingWhenIdle: true, on: connection)
        #expect(fourth.position == 4)
        let order = try await connection.query(
            "SELECT stream_version FROM authlog.events WHERE stream = 'signin-apple' ORDER BY position"
        ).rows.map { try $0.decode(Int32.self, at: 0) }
        #expect(order == [1, 2, 3], "the stream's events in the log in their versions' order")
        #expect(try await verify(database) == intact(database))
    }

    /// Writes `event` as a batch of its own on `connection`; returns its outcome.
    private func write(
        _ event: EventEnvelope,
        sealingWhenIdle: Bool,
        on connection: Connection
    ) async throws -> AppendedEvent {
        let command = try PostgresEventStore.prepare(AppendCommand(event))
        let outcome = await BatchWriter.write([command], sealingWhenIdle: sealingWhenIdle, on: connection)
        guard case .written(let results) = outcome, let appended = try results.first?.get().events.first else {
            throw StoreError(.server, "the batch was not written")
        }
        return appended
    }
}
