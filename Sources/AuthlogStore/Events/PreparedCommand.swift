import AuthlogCore
import AuthlogPostgres

/// A command ``PostgresEventStore`` validated, with each event's projection changes decided before it is
/// queued, so the reducer's work never runs inside a batch's transaction.
struct PreparedCommand: Sendable {
    /// The command as the caller gave it.
    var command: AppendCommand
    /// One list of changes per event, in the command's order.
    var projectionChanges: [[ScopedChange]] = []

    /// The events, in the order they are appended.
    var events: [EventEnvelope] { self.command.events }
    /// Expectations on stream versions.
    var expectedVersions: [StreamName: ExpectedVersion] { self.command.expectedVersions }
    /// Every stream the command writes or expects a version of.
    var streams: Set<String> { self.command.streams }
}

extension StoreError {
    /// The error ``EventStore/append(_:)`` promises for this failure: ``WrongExpectedVersion`` and
    /// ``InvalidEvent`` for the caller's mistakes, this error itself otherwise.
    var asAppendFailure: any Error {
        switch self.code {
        case .wrongExpectedVersion: return WrongExpectedVersion(self.message, eventIndex: self.eventIndex)
        case .invalidEvent: return InvalidEvent(self.message, eventIndex: self.eventIndex)
        case .dpopProofReplayed: return DPoPProofReplayed()
        default: return self
        }
    }
}
