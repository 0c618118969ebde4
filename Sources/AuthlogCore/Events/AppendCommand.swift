public import Foundation

/// What a command expects of a stream's version before it appends.
public enum ExpectedVersion: Sendable, Equatable {
    /// Append whatever the stream's version is.
    case any
    /// The stream must have no events yet.
    case noStream
    /// The stream must be at exactly this version.
    case exactly(Int32)

    /// Whether a stream at `current` (0: no events yet) meets the expectation.
    public func allows(_ current: Int32) -> Bool {
        switch self {
        case .any: return true
        case .noStream: return current == 0
        case .exactly(let version): return current == version
        }
    }
}

/// Events that are appended together or not at all, with optional per-stream expectations.
///
/// An event whose `event_id` is already stored is not stored again: the result reports the stored
/// position (idempotent ingest). An event with an explicit `streamVersion` must land at exactly that version.
public struct AppendCommand: Sendable {
    /// The events, in the order they are appended.
    public var events: [EventEnvelope]
    /// Expectations on stream versions, checked before any event of the command is placed.
    public var expectedVersions: [StreamName: ExpectedVersion]
    /// The sealed answer of a rotation, kept with the rotated token's row in the same transaction as the
    /// events, after their projection changes; nothing when the command's last event was stored before.
    public var sealedSuccessor: SealedSuccessor?
    /// The DPoP proof the command acts on, recorded with its events; the command fails with
    /// ``DPoPProofReplayed`` when it was recorded before.
    public var dpopProof: DPoPProofClaim?

    /// Creates a command.
    public init(
        events: [EventEnvelope],
        expectedVersions: [StreamName: ExpectedVersion] = [:],
        sealedSuccessor: SealedSuccessor? = nil,
        dpopProof: DPoPProofClaim? = nil
    ) {
        self.events = events
        self.expectedVersions = expectedVersions
        self.sealedSuccessor = sealedSuccessor
        self.dpopProof = dpopProof
    }

    /// Every stream the command writes or expects a version of.
    public var streams: Set<String> {
        Set(self.events.map(\.stream.rawValue)).union(self.expectedVersions.keys.map(\.rawValue))
    }

    /// The first expectation that streams at `version(stream)` do not meet, as the error every store throws
    /// for it; nil when all hold.
    public func unmetExpectation(version: (String) -> Int32) -> WrongExpectedVersion? {
        for (stream, expected) in self.expectedVersions {
            let current = version(stream.rawValue)
            if !expected.allows(current) {
                return WrongExpectedVersion("stream \(stream) is at version \(current), expected \(expected)")
            }
        }
        return nil
    }

    /// The error every store throws when the event at `index` names an explicit stream version that is not
    /// the next one after `current`; nil when it names none or the right one.
    public func misplacedEvent(at index: Int, streamAt current: Int32) -> WrongExpectedVersion? {
        let event = self.events[index]
        guard let given = event.streamVersion, given != current + 1 else { return nil }
        return WrongExpectedVersion(
            "stream \(event.stream) is at version \(current), so the next event cannot be version \(given)",
            eventIndex: index
        )
    }

    /// Creates a command for one event.
    public init(_ event: EventEnvelope, expecting expected: ExpectedVersion = .any) {
        self.events = [event]
        self.expectedVersions = expected == .any ? [:] : [event.stream: expected]
    }
}

/// Where each event of a command ended up.
public struct AppendResult: Sendable, Equatable {
    /// One entry per event of the command, in order.
    public var events: [AppendedEvent]

    /// Creates a result from its events' outcomes, in the command's order.
    public init(events: [AppendedEvent]) { self.events = events }

    /// The highest position among the command's events, once all of them are sealed.
    public var lastPosition: Int64? {
        let positions = self.events.compactMap(\.position)
        guard positions.count == self.events.count else { return nil }
        return positions.max()
    }
}

/// What became of one appended event.
public struct AppendedEvent: Sendable, Equatable {
    /// The event's id.
    public var eventID: UUID
    /// Its global position in the log: nil while committed but not yet sealed.
    public var position: Int64?
    /// Its version within its stream.
    public var streamVersion: Int32
    /// Whether it was stored by an earlier call with the same `event_id` (idempotent replay).
    public var wasAlreadyStored: Bool

    /// Creates the outcome of one event.
    public init(eventID: UUID, position: Int64?, streamVersion: Int32, wasAlreadyStored: Bool) {
        self.eventID = eventID
        self.position = position
        self.streamVersion = streamVersion
        self.wasAlreadyStored = wasAlreadyStored
    }
}
