import AuthlogCore
import Synchronization

/// Everything an in-memory store keeps, behind one lock: the event log, the projections the appends
/// maintain, and the state tables. The in-memory event store and ports share one, so that what an append
/// projects is what the ports read, as over one PostgreSQL database.
final class InMemoryStorage: Sendable {
    struct State: Sendable {
        var log = InMemoryEventLog()
        var projections = InMemoryProjections()
        var tables = InMemoryStateTables()
    }

    private let state = Mutex(State())

    /// Runs `body` with the state locked; every read and write of a store goes through here.
    func withState<Result: Sendable, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try self.state.withLock { (state) throws(Failure) -> Result in try body(&state) }
    }
}
