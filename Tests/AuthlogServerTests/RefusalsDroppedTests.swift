import AuthlogCore
import AuthlogTesting
import Synchronization
import Testing

@testable import AuthlogServer

/// Refusal events the recorder had to drop while the database stayed unwritable are not only a counter: once
/// appends work again, one `audit.refusals_dropped` says how many were dropped and what they accounted for.
struct RefusalsDroppedTests {
    /// An event store whose appends fail while it is down, as PostgreSQL's would.
    final class SwitchableStore: EventStore {
        struct Down: Error {}

        let memory = InMemoryEventStore()
        private let down = Mutex(false)

        func set(down: Bool) { self.down.withLock { $0 = down } }

        func append(_ command: AppendCommand) async throws -> AppendResult {
            if self.down.withLock({ $0 }) { throw Down() }
            return try await self.memory.append(command)
        }

        func appendEach(_ commands: [AppendCommand]) async -> [Result<AppendResult, any Error>] {
            if self.down.withLock({ $0 }) { return commands.map { _ in .failure(Down()) } }
            return await self.memory.appendEach(commands)
        }
    }

    @Test func eventsDroppedWhileTheDatabaseIsDownAreRecordedOnceWhenItIsBack() async throws {
        let recorder = RefusalRecorder(policy: .defaults, maximumUnwritten: 3)
        let store = SwitchableStore()
        store.set(down: true)
        // Five addresses' first refusals: five events, of which the recorder keeps three.
        for index in 1...5 { recorder.noteRequestRefused(address: "203.0.113.\(index)", kind: "invalid_request") }
        await #expect(throws: SwitchableStore.Down.self) { try await recorder.flush(into: store) }
        #expect(recorder.totals.lost == 2)
        // Still down: the next flush drops nothing more (nothing new), records nothing.
        await #expect(throws: SwitchableStore.Down.self) { try await recorder.flush(into: store) }
        #expect(store.memory.events.isEmpty)

        store.set(down: false)
        try await recorder.flush(into: store)
        #expect(store.memory.events(ofType: .requestRefused).count == 3, "the three kept are written")
        let dropped = store.memory.events(ofType: .auditRefusalsDropped)
        #expect(dropped.count == 1)
        let event = try #require(dropped.first)
        #expect(event.outcome == .failure && event.reason == "too_many_waiting")
        #expect(event.stream.rawValue == "audit-refusals")
        let payload = try event.payload(as: AuditRefusalsDropped.self)
        #expect(payload.events == 2 && payload.requests == 2)
        #expect(Timestamp(iso8601: payload.firstDroppedAt) != nil && payload.firstDroppedAt <= payload.lastDroppedAt)
        try await recorder.flush(into: store)
        #expect(store.memory.events(ofType: .auditRefusalsDropped).count == 1, "one event per episode")
    }
}
