import AuthlogServer
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// Background work as services: a pass runs at once and then every interval, graceful shutdown cuts the wait
/// short (never a pass), runs the shutdown work, and stops the services in reverse order of the group.
struct PeriodicServiceTests {
    final class Journal: Sendable {
        private let entries = Mutex<[String]>([])
        func add(_ entry: String) { self.entries.withLock { $0.append(entry) } }
        var all: [String] { self.entries.withLock { $0 } }
    }

    @Test func gracefulShutdownEndsTheWaitRunsTheShutdownWorkAndStopsInReverseOrder() async throws {
        let journal = Journal()
        let passes = Atomic<Int>(0)
        let first = PeriodicService(
            name: "first",
            every: .seconds(3600),
            body: { passes.add(1, ordering: .relaxed) },
            onShutdown: { journal.add("first stopped") }
        )
        let second = PeriodicService(
            name: "second",
            every: .seconds(3600),
            body: {
                // A pass in progress when shutdown begins is finished.
                try? await Task.sleep(for: .milliseconds(200))
                journal.add("second pass")
            },
            onShutdown: { journal.add("second stopped") }
        )
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [first, second].map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                gracefulShutdownSignals: [],
                logger: Logger(label: "test")
            )
        )
        let started = ContinuousClock.now
        let running = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(50))
        await group.triggerGracefulShutdown()
        try await running.value
        // Far below the hour the services would otherwise wait, and far above what a loaded machine takes:
        // under ASan with the whole suite running on two cores this took 32 s once.
        #expect(ContinuousClock.now - started < .seconds(600), "the hour-long wait was cut short")
        #expect(passes.load(ordering: .relaxed) == 1, "one pass at start, none after shutdown")
        #expect(journal.all == ["second pass", "second stopped", "first stopped"])
    }
}
