import AuthlogCore
import Foundation

/// The event log in memory: every stored envelope in order, each stream's version and each event id's
/// outcome, with the append rules of AuthlogStore's `BatchPlan`.
///
/// A command's expected versions are checked before any of its events is placed; an event whose id is
/// stored already is answered with its stored outcome (`wasAlreadyStored`) and not placed again; an event
/// with an explicit `streamVersion` must land at exactly that version; a failing command leaves nothing.
/// Positions are given at once (1, 2, 3, …): there is no sealer.
struct InMemoryEventLog: Sendable {
    /// Every stored envelope, in position order, with its `streamVersion` set.
    private(set) var envelopes: [EventEnvelope] = []
    private var streamVersions: [String: Int32] = [:]
    private var storedEvents: [UUID: AppendedEvent] = [:]

    /// The current version of `stream`: 0 when it has no events.
    func version(of stream: String) -> Int32 {
        self.streamVersions[stream] ?? 0
    }

    /// Places `command`'s events (already validated, with their projection changes) or fails without
    /// storing anything.
    /// - Returns: the command's result and the projection changes of the events it placed, in order.
    /// - Throws: ``WrongExpectedVersion`` when an expectation or an explicit stream version does not hold.
    mutating func place(
        _ command: AppendCommand,
        changes: [[ProjectionChange]]
    ) throws(WrongExpectedVersion) -> (result: AppendResult, changes: [ProjectionChange]) {
        var versions: [String: Int32] = [:]
        func version(of stream: String) -> Int32 { versions[stream] ?? self.version(of: stream) }

        if let unmet = command.unmetExpectation(version: version(of:)) { throw unmet }
        var placedHere: [UUID: AppendedEvent] = [:]
        var placedEnvelopes: [EventEnvelope] = []
        var placedChanges: [ProjectionChange] = []
        var appended: [AppendedEvent] = []
        for (index, var event) in command.events.enumerated() {
            if let known = placedHere[event.eventID] ?? self.storedEvents[event.eventID] {
                appended.append(known)
                continue
            }
            let current = version(of: event.stream.rawValue)
            if let misplaced = command.misplacedEvent(at: index, streamAt: current) { throw misplaced }
            event.streamVersion = current + 1
            versions[event.stream.rawValue] = current + 1
            let placed = AppendedEvent(
                eventID: event.eventID,
                position: Int64(self.envelopes.count + placedEnvelopes.count + 1),
                streamVersion: current + 1,
                wasAlreadyStored: false
            )
            placedHere[event.eventID] = placed
            placedEnvelopes.append(event)
            placedChanges += index < changes.count ? changes[index] : []
            appended.append(placed)
        }
        self.envelopes += placedEnvelopes
        self.streamVersions.merge(versions) { _, new in new }
        for (id, placed) in placedHere {
            var stored = placed
            stored.wasAlreadyStored = true
            self.storedEvents[id] = stored
        }
        return (AppendResult(events: appended), placedChanges)
    }
}
