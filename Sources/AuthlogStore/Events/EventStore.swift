public import AuthlogCore

/// The event log in PostgreSQL: appends go through the process's ``Sequencer``; reads use the pool.
public final class EventStore: Sendable {
    /// The connections this store uses.
    public let pool: ConnectionPool
    private let sequencer: Sequencer

    /// Creates a store over `pool`. Batches hold at most `maximumBatchEvents` events; `batchObserver`, when
    /// given, hears the number of events of every batch before it is written (for metrics).
    public init(pool: ConnectionPool, maximumBatchEvents: Int = 4000, batchObserver: (@Sendable (Int) -> Void)? = nil) {
        self.pool = pool
        self.sequencer = Sequencer(pool: pool, maximumBatchEvents: maximumBatchEvents, batchObserver: batchObserver)
    }

    /// Validates and appends one command; returns after COMMIT.
    /// - Throws: ``StoreError`` `.invalidEvent`, `.wrongExpectedVersion`, `.connectionFailed` or `.server`.
    @discardableResult
    public func append(_ command: AppendCommand) async throws -> AppendResult {
        let prepared = try Self.prepare(command)
        guard let result = await self.sequencer.submit([prepared]).first else {
            throw StoreError(.server, "the sequencer returned no result")
        }
        return try result.get()
    }

    /// Appends one event.
    /// - Throws: as ``append(_:)-(AppendCommand)``.
    @discardableResult
    public func append(_ event: EventEnvelope, expecting expected: ExpectedVersion = .any) async throws -> AppendResult
    {
        try await self.append(AppendCommand(event, expecting: expected))
    }

    /// Appends several commands in one batch (one transaction); each succeeds or fails on its own.
    public func appendTogether(_ commands: [AppendCommand]) async -> [Result<AppendResult, StoreError>] {
        var valid: [AppendCommand] = []
        var failures: [Int: StoreError] = [:]
        for (index, command) in commands.enumerated() {
            do {
                valid.append(try Self.prepare(command))
            } catch {
                failures[index] = (error as? StoreError) ?? StoreError(.invalidEvent, "\(error)")
            }
        }
        var written = await self.sequencer.submit(valid)[...]
        return commands.indices.map { index in
            if let failure = failures[index] { return .failure(failure) }
            return written.popFirst() ?? .failure(StoreError(.server, "the sequencer returned no result"))
        }
    }

    /// Validates every event and decides its projection changes, outside the sequencer's transaction.
    private static func prepare(_ command: AppendCommand) throws -> AppendCommand {
        var prepared = command
        prepared.projectionChanges = []
        for (index, event) in command.events.enumerated() {
            do {
                let payload = try event.validatedPayload()
                prepared.projectionChanges.append(try ScopedChange.changes(of: event, decoded: payload))
            } catch {
                throw StoreError(.invalidEvent, "event \(index + 1): \(error)", eventIndex: index)
            }
        }
        return prepared
    }
}
