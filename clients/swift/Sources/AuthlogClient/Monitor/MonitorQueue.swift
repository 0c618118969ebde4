import Foundation

/// The events waiting for their receipt and the outcomes of those settled, both bounded: a full queue takes no
/// new id (and says so), and beyond the outcome limit the oldest verified outcomes are forgotten first. The
/// waiting events go into the monitor's record (``stored(now:wallNow:budget:)``) and come back from it at the next
/// launch (``restore(_:now:wallNow:latest:)``).
struct MonitorQueue: Sendable {
    /// One event waiting for its receipt.
    struct Item: Sendable {
        var id: String
        var expectation: EventExpectation
        var state: ReceiptState
        /// When it may be asked for next.
        var due: ContinuousClock.Instant
        /// How many answers did not give it.
        var notFoundTries = 0
        /// How many answers for it in a row were bad.
        var badAnswers = 0
    }

    /// What became of an id offered to the queue.
    enum Insertion: Equatable {
        case added
        /// Queued or settled already.
        case known
        /// The queue is full.
        case full
    }

    private var items: [String: Item] = [:]
    /// The queued ids, oldest first.
    private var order: [String] = []
    private var outcomes: [String: ReceiptState] = [:]
    /// The settled ids, oldest first.
    private var outcomeOrder: [String] = []
    let maximumQueued: Int
    let maximumOutcomes: Int

    init(maximumQueued: Int, maximumOutcomes: Int) {
        self.maximumQueued = max(1, maximumQueued)
        self.maximumOutcomes = max(1, maximumOutcomes)
    }

    /// How many events wait.
    var count: Int { self.order.count }

    /// The state of `id`, as the user `currentUser` (signed in now) sees it.
    func state(of id: String, currentUser: String?) -> ReceiptState {
        if let outcome = self.outcomes[id] { return outcome }
        guard let item = self.items[id] else { return .notChecked }
        if item.expectation.userID != currentUser, item.state == .queued { return .pending(.waitingForSignIn) }
        return item.state
    }

    /// Queues `id`, to be asked for from `due`.
    mutating func insert(_ id: String, expectation: EventExpectation, due: ContinuousClock.Instant) -> Insertion {
        guard self.items[id] == nil, self.outcomes[id] == nil else { return .known }
        guard self.order.count < self.maximumQueued else { return .full }
        self.items[id] = Item(id: id, expectation: expectation, state: .queued, due: due)
        self.order.append(id)
        return .added
    }

    /// The item of `id`, if queued.
    func item(_ id: String) -> Item? { self.items[id] }

    /// Up to `limit` events of `userID` due at `now` (all of them when `now` is nil), oldest first.
    func due(for userID: String, at now: ContinuousClock.Instant?, limit: Int) -> [Item] {
        var picked: [Item] = []
        for id in self.order where picked.count < limit {
            guard let item = self.items[id], item.expectation.userID == userID else { continue }
            if let now, item.due > now { continue }
            picked.append(item)
        }
        return picked
    }

    /// The next batch of `userID` at `now`: the events due, oldest first, and when there is one, the events
    /// never asked for yet that are not due, to fill it (they ride along: the first event's wait is the batching
    /// window); empty when none is due.
    func batch(for userID: String, at now: ContinuousClock.Instant, limit: Int) -> [Item] {
        var picked = self.due(for: userID, at: now, limit: limit)
        guard !picked.isEmpty else { return [] }
        let taken = Set(picked.map(\.id))
        for id in self.order where picked.count < limit && !taken.contains(id) {
            guard let item = self.items[id], item.expectation.userID == userID, item.state == .queued else { continue }
            picked.append(item)
        }
        return picked
    }

    /// When the next event of `userID` is due; nil when none waits.
    func nextDue(for userID: String) -> ContinuousClock.Instant? {
        self.order.compactMap { self.items[$0] }.filter { $0.expectation.userID == userID }.map(\.due).min()
    }

    /// Replaces the queued item (its state, due time and counts).
    mutating func update(_ item: Item) {
        guard self.items[item.id] != nil else { return }
        self.items[item.id] = item
    }

    /// Settles `id` with `state` (verified or refused): it leaves the queue and joins the outcomes.
    mutating func settle(_ id: String, _ state: ReceiptState) {
        if self.items.removeValue(forKey: id) != nil { self.order.removeAll { $0 == id } }
        if self.outcomes.updateValue(state, forKey: id) == nil { self.outcomeOrder.append(id) }
        while self.outcomeOrder.count > self.maximumOutcomes {
            let victim =
                self.outcomeOrder.firstIndex { if case .verified = self.outcomes[$0] { true } else { false } } ?? 0
            self.outcomes.removeValue(forKey: self.outcomeOrder.remove(at: victim))
        }
    }

    /// The queued events as a record keeps them, oldest first, as many as fit in `budget` bytes of JSON, each
    /// event's due time turned from the monitor's clock (`now`) to the wall clock (`wallNow`).
    func stored(
        now: ContinuousClock.Instant,
        wallNow: Date,
        budget: Int = MonitorRecord.maximumQueueBytes
    ) -> [MonitorRecord.QueuedEvent] {
        let encoder = JSONEncoder()
        var events: [MonitorRecord.QueuedEvent] = []
        var bytes = 2
        for id in self.order {
            guard let item = self.items[id] else { continue }
            let event = MonitorRecord.QueuedEvent(item, now: now, wallNow: wallNow)
            // The event's JSON and the comma after it.
            bytes += ((try? encoder.encode(event).count) ?? budget) + 1
            guard bytes <= budget else { break }
            events.append(event)
        }
        return events
    }

    /// Queues the events of a record an earlier launch wrote that are neither queued nor settled, as far as the
    /// bound lets, each due at its next try by the wall clock (``MonitorRecord/QueuedEvent/item(now:wallNow:latest:)``).
    /// - Returns: how many were queued.
    mutating func restore(
        _ events: [MonitorRecord.QueuedEvent],
        now: ContinuousClock.Instant,
        wallNow: Date,
        latest: Duration
    ) -> Int {
        var restored = 0
        for event in events {
            guard self.order.count < self.maximumQueued,
                let item = event.item(now: now, wallNow: wallNow, latest: latest),
                self.items[item.id] == nil, self.outcomes[item.id] == nil
            else { continue }
            self.items[item.id] = item
            self.order.append(item.id)
            restored += 1
        }
        return restored
    }

    /// Drops every queued event of `userID` (an account deleted: the server no longer answers for them).
    mutating func forget(userID: String) {
        let dropped = Set(self.order.filter { self.items[$0]?.expectation.userID == userID })
        for id in dropped { self.items.removeValue(forKey: id) }
        self.order.removeAll { dropped.contains($0) }
    }
}
