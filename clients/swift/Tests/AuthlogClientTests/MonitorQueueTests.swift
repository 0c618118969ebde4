import Foundation
import Testing

@testable import AuthlogClient

/// The monitor's queue and outcomes stay bounded: a full queue takes no new id, and beyond the outcome limit
/// the oldest verified outcomes go first, refusals after them.
struct MonitorQueueTests {
    static let expectation = EventExpectation(userID: "u", sessions: .anyOfUser, requestedAt: Date())

    static func verified(_ id: String) -> ReceiptState {
        .verified(
            VerifiedReceipt(
                eventID: id,
                type: "token.refreshed",
                position: 1,
                occurredAt: Date(timeIntervalSince1970: 1_795_600_000),
                sessionID: nil,
                checkpointSize: 1,
                witnessedBy: []
            )
        )
    }

    @Test func aFullQueueTakesNoNewIdAndAKnownIdIsNotQueuedTwice() {
        var queue = MonitorQueue(maximumQueued: 2, maximumOutcomes: 10)
        #expect(queue.insert("a", expectation: Self.expectation, due: .now) == .added)
        #expect(queue.insert("a", expectation: Self.expectation, due: .now) == .known)
        #expect(queue.insert("b", expectation: Self.expectation, due: .now) == .added)
        #expect(queue.insert("c", expectation: Self.expectation, due: .now) == .full)
        queue.settle("a", Self.verified("a"))
        #expect(queue.insert("a", expectation: Self.expectation, due: .now) == .known, "settled already")
        #expect(queue.insert("c", expectation: Self.expectation, due: .now) == .added)
        #expect(queue.count == 2)
    }

    @Test func beyondTheLimitTheOldestVerifiedOutcomesAreForgottenFirst() {
        var queue = MonitorQueue(maximumQueued: 10, maximumOutcomes: 2)
        queue.settle("refused", .refused(.notFound(tries: 3)))
        queue.settle("old", Self.verified("old"))
        queue.settle("new", Self.verified("new"))
        #expect(queue.state(of: "refused", currentUser: "u") == .refused(.notFound(tries: 3)))
        #expect(queue.state(of: "old", currentUser: "u") == .notChecked)
        #expect(queue.state(of: "new", currentUser: "u") == Self.verified("new"))
        // With no verified outcome left to drop, the oldest goes.
        queue.settle("refused-2", .refused(.notFound(tries: 3)))
        queue.settle("refused-3", .refused(.notFound(tries: 3)))
        #expect(queue.state(of: "new", currentUser: "u") == .notChecked)
        #expect(queue.state(of: "refused", currentUser: "u") == .notChecked)
        #expect(queue.state(of: "refused-3", currentUser: "u") == .refused(.notFound(tries: 3)))
    }

    @Test func aBatchIsSentWhenItsFirstEventIsDueAndTakesTheEventsNamedSince() {
        var queue = MonitorQueue(maximumQueued: 10, maximumOutcomes: 10)
        let now = ContinuousClock.now
        _ = queue.insert("first", expectation: Self.expectation, due: now)
        _ = queue.insert("later", expectation: Self.expectation, due: now + .seconds(600))
        _ = queue.insert("waiting", expectation: Self.expectation, due: now + .seconds(600))
        // An event asked for before waits for its own time (a back-off, a Retry-After).
        var waiting = queue.item("waiting")
        waiting?.state = .pending(.notFoundYet(tries: 1))
        if let waiting { queue.update(waiting) }
        #expect(queue.batch(for: "u", at: now - .seconds(1), limit: 64).isEmpty)
        #expect(queue.batch(for: "u", at: now, limit: 64).map(\.id) == ["first", "later"])
        #expect(queue.batch(for: "u", at: now, limit: 1).map(\.id) == ["first"])
    }

    @Test func anotherUsersQueuedEventWaitsForThatUsersSignIn() {
        var queue = MonitorQueue(maximumQueued: 10, maximumOutcomes: 10)
        _ = queue.insert("a", expectation: Self.expectation, due: .now)
        #expect(queue.state(of: "a", currentUser: "u") == .queued)
        #expect(queue.state(of: "a", currentUser: "v") == .pending(.waitingForSignIn))
        #expect(queue.due(for: "v", at: .now, limit: 64).isEmpty)
        queue.forget(userID: "u")
        #expect(queue.count == 0)
    }
}
