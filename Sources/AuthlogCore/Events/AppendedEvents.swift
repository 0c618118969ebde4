public import Foundation
import Synchronization

/// The ids of the events one request appended (or found appended already), so that its answer can return
/// them as receipts: the HTTP layer binds a collector to the request's task (``current``), and
/// every ``EventStore`` adds every event of every command it stored while it is bound. At most ``limit``
/// ids are kept.
public final class AppendedEvents: Sendable {
    /// The collector of the task at hand, if any.
    @TaskLocal public static var current: AppendedEvents?

    /// The most ids kept (an account deletion can end many sessions).
    public static let limit = 100

    private let state = Mutex<[UUID]>([])

    /// An empty collector.
    public init() {}

    /// The ids, in the order they were appended.
    public var ids: [UUID] { self.state.withLock { $0 } }

    /// Adds ids not seen yet, up to the limit.
    public func add(_ ids: [UUID]) {
        self.state.withLock { list in
            for id in ids where list.count < Self.limit && !list.contains(id) {
                list.append(id)
            }
        }
    }
}
