/// The port through which the application rules append events: PostgreSQL in production
/// (`PostgresEventStore`), memory in rule tests (`InMemoryEventStore`), both held to one conformance suite.
///
/// A command's events are appended together or not at all. An event whose `event_id` is stored already is
/// not stored again (its result says `wasAlreadyStored`). Expected versions are checked before any event of
/// the command is placed; when one does not hold, the command fails with ``WrongExpectedVersion`` and
/// nothing of it is stored.
public protocol EventStore: Sendable {
    /// Validates and appends one command; returns once it is committed.
    /// - Throws: ``WrongExpectedVersion`` when an expectation does not hold; ``InvalidEvent`` when an event
    ///   fails validation; the store's own error when it cannot be reached or fails.
    @discardableResult
    func append(_ command: AppendCommand) async throws -> AppendResult

    /// Appends several commands in one batch; each succeeds or fails on its own, with the errors
    /// ``append(_:)`` throws.
    func appendEach(_ commands: [AppendCommand]) async -> [Result<AppendResult, any Error>]
}

extension EventStore {
    /// Appends one event.
    /// - Throws: as ``append(_:)``.
    @discardableResult
    public func append(_ event: EventEnvelope, expecting expected: ExpectedVersion = .any) async throws -> AppendResult
    {
        try await self.append(AppendCommand(event, expecting: expected))
    }
}

/// A stream was not at the version a command expected, so nothing of the command was stored.
public struct WrongExpectedVersion: Error, Sendable, CustomStringConvertible {
    /// Which stream, at which version, against what was expected.
    public var message: String
    /// The index of the event at fault within its command, when one event is.
    public var eventIndex: Int?

    /// Creates the error.
    public init(_ message: String, eventIndex: Int? = nil) {
        self.message = message
        self.eventIndex = eventIndex
    }

    public var description: String { "wrong expected version: \(self.message)" }
}

/// An event of a command failed validation before it reached the store, so nothing of the command was stored.
public struct InvalidEvent: Error, Sendable, CustomStringConvertible {
    /// Which event and what is wrong with it.
    public var message: String
    /// The index of the event at fault within its command.
    public var eventIndex: Int?

    /// Creates the error.
    public init(_ message: String, eventIndex: Int? = nil) {
        self.message = message
        self.eventIndex = eventIndex
    }

    public var description: String { "invalid event: \(self.message)" }
}
