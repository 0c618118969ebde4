import Foundation

extension MonitorRecord.QueuedEvent {
    /// `item` as a record keeps it; its due time on the monitor's clock (`now`) becomes a wall-clock time
    /// (`wallNow`).
    init(_ item: MonitorQueue.Item, now: ContinuousClock.Instant, wallNow: Date) {
        self.eventID = item.id
        self.userID = item.expectation.userID
        switch item.expectation.sessions {
        case .only(let sessions): self.sessions = sessions.sorted()
        case .anyOfUser: self.sessions = nil
        }
        self.requestedAt = item.expectation.requestedAt
        self.listedPosition = item.expectation.listedPosition
        self.types = item.expectation.types?.sorted()
        self.stage = Stage(item.state)
        self.nextTryAt = wallNow.addingTimeInterval(max(0, (item.due - now).timeInterval))
        self.notFoundTries = item.notFoundTries
        self.badAnswers = item.badAnswers
    }

    /// The queue's item for this event, due at its next try by the wall clock (`wallNow`) but no later than
    /// `latest` from `now` (the wall clock may have moved while the app was not running); nil when the id is not
    /// an event id.
    func item(now: ContinuousClock.Instant, wallNow: Date, latest: Duration) -> MonitorQueue.Item? {
        guard let id = EventIDs.normalized(self.eventID) else { return nil }
        let wait = min(max(0, self.nextTryAt.timeIntervalSince(wallNow)), latest.timeInterval)
        var item = MonitorQueue.Item(
            id: id,
            expectation: EventExpectation(
                userID: self.userID,
                sessions: self.sessions.map { .only(Set($0)) } ?? .anyOfUser,
                requestedAt: self.requestedAt,
                listedPosition: self.listedPosition,
                types: self.types.map { Set($0) }
            ),
            state: self.stage.state,
            due: now + .seconds(wait.isFinite ? wait : 0)
        )
        item.notFoundTries = min(max(0, self.notFoundTries), 1_000)
        item.badAnswers = min(max(0, self.badAnswers), 1_000)
        return item
    }
}

extension MonitorRecord.QueuedEvent.Stage {
    /// The stage of a queued item in `state`.
    init(_ state: ReceiptState) {
        switch state {
        case .pending(.notCheckpointed): self = .notCheckpointed
        case .pending(.belowQuorum(let cosigned)): self = .belowQuorum(cosigned: cosigned)
        case .pending(.notFoundYet(let tries)): self = .notFoundYet(tries: tries)
        case .pending(.retrying): self = .retrying
        case .queued, .pending(.waitingForSignIn), .notChecked, .verified, .refused: self = .queued
        }
    }

    /// The state a restored item starts in.
    var state: ReceiptState {
        switch self {
        case .queued, .retrying: .queued
        case .notCheckpointed: .pending(.notCheckpointed)
        case .belowQuorum(let cosigned): .pending(.belowQuorum(cosigned: cosigned))
        case .notFoundYet(let tries): .pending(.notFoundYet(tries: tries))
        }
    }
}
