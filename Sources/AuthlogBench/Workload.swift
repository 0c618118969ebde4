import AuthlogCore
import AuthlogTesting
import Synchronization

/// Pre-generated traffic shared by every measurement, handed out one user action at a time: 100,000 users
/// already registered, then registrations, sign-ins, failures, refreshes, logouts and revocations.
struct Workload: Sendable {
    let actions: [[EventEnvelope]]
    var eventCount: Int { self.actions.reduce(0) { $0 + $1.count } }

    static func make(events: Int) -> Workload {
        var generator = TrafficGenerator(seed: 42, existingUsers: 100_000)
        var actions: [[EventEnvelope]] = []
        var count = 0
        while count < events {
            let action = generator.nextAction()
            actions.append(action)
            count += action.count
        }
        return Workload(actions: actions)
    }

    /// Every event, flattened, for the baselines.
    var events: [EventEnvelope] { self.actions.flatMap { $0 } }
}

/// Hands out indexes `0, 1, 2, …` to concurrent workers.
final class Ticket: Sendable {
    private let next = Atomic<Int>(0)

    func take() -> Int { self.next.wrappingAdd(1, ordering: .relaxed).oldValue }

    /// Adds `amount` (a counter's use).
    func add(_ amount: Int) { self.next.wrappingAdd(amount, ordering: .relaxed) }

    /// The current value.
    var current: Int { self.next.load(ordering: .relaxed) }
}
