import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Logging
import Testing

@testable import AuthlogServer

/// A process that cannot sign checkpoints (its checkpoint directory or signer state cannot be written, its key
/// cannot sign) puts the episode on the record: `audit.checkpoint_failing` once, at the third failure in a row,
/// and `audit.checkpoint_recovered` at the next checkpoint it signs. A database that cannot be reached is not
/// such a failure (nothing could be recorded; the write path records its outage).
@Suite(.enabled(if: TestDatabase.isAvailable))
struct CheckpointFailureTests {
    @Test func anEpisodeOfFailuresToSignIsRecordedOnceAndItsEnd() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        let failures = CheckpointFailures(store: store)
        let logger = Logger(label: "test")
        await failures.signed(size: 12, logger: logger)
        let unwritable = StoreError(.server, "cannot write the signer state /var/lib/authlog/latest.note")
        await failures.failed(StoreError(.connectionFailed, "connection refused"), logger: logger)
        for _ in 0..<2 { await failures.failed(unwritable, logger: logger) }
        await failures.failed(
            StoreError(.server, "canceling statement due to statement timeout", sqlState: "57014"),
            logger: logger
        )
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.event_records WHERE type LIKE 'audit.checkpoint_%'")
                == 0
        )
        for _ in 0..<5 { await failures.failed(unwritable, logger: logger) }
        try await store.sealPending()
        let failing = try #require(
            try await database.connect().query(
                """
                SELECT reason, outcome, data->>'failures', data->>'last_error', data->>'last_signed_size',
                       data->>'failing_since'
                FROM authlog.events WHERE type = 'audit.checkpoint_failing'
                """
            ).rows.first
        )
        let recorded = try await database.scalar(
            "SELECT count(*) FROM authlog.events WHERE type = 'audit.checkpoint_failing'"
        )
        #expect(recorded == 1)
        #expect(try failing.decode(String.self, at: 0) == "signing_failed")
        #expect(try failing.decode(String.self, at: 1) == "failure")
        #expect(try failing.decode(String.self, at: 2) == "3", "recorded at the third, the unreachable one not counted")
        #expect(try failing.decode(String.self, at: 3) == unwritable.message)
        #expect(try failing.decode(String.self, at: 4) == "12")
        let since = try failing.decode(String.self, at: 5)

        await failures.signed(size: 20, logger: logger)
        try await store.sealPending()
        let recovered = try #require(
            try await database.connect().query(
                """
                SELECT data->>'failures', data->>'signed_size', data->>'failing_since'
                FROM authlog.events WHERE type = 'audit.checkpoint_recovered'
                """
            ).rows.first
        )
        #expect(try recovered.decode(String.self, at: 0) == "7")
        #expect(try recovered.decode(String.self, at: 1) == "20")
        #expect(try recovered.decode(String.self, at: 2) == since)
        // A new episode starts from nothing: two failures record nothing more.
        for _ in 0..<2 { await failures.failed(unwritable, logger: logger) }
        #expect(
            try await database.scalar("SELECT count(*) FROM authlog.event_records WHERE type LIKE 'audit.checkpoint_%'")
                == 2
        )
    }
}
