public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// The event log in PostgreSQL: appends go through the process's ``GroupCommitWriter`` (parallel batches,
/// answered after COMMIT), which hands the committed events to the process's ``Sealer`` (positions, leaves,
/// the Merkle tree); reads use the pool.
public final class PostgresEventStore: EventStore {
    /// The connections this store uses.
    public let pool: ConnectionPool
    /// The process's sealer.
    public let sealer: Sealer
    /// What this process's signer and sealer refused (for `/readyz` and `/metrics`).
    public let integrity: LogIntegrityStatus
    private let writer: GroupCommitWriter
    private let appendObserver: (@Sendable ([EventType]) -> Void)?
    private let writeObserver: (@Sendable ([Result<AppendResult, StoreError>]) -> Void)?

    /// The event key this process authenticates its events with, and checks queued rows against.
    public let authenticator: EventAuthenticator?

    /// Creates a store over `pool`. Batches hold at most `maximumBatchEvents` events; `batchObserver`, when
    /// given, hears the number of events of every batch before it is written, and `appendObserver` the types
    /// of the events each command stored (not those found stored already), after the commit (for metrics);
    /// `writeObserver` hears the writer's result of every command it was given, success or failure (whether
    /// the log can be written: `/readyz`). With an `authenticator` (the event key) every event carries its MAC
    /// and the sealer refuses queued rows without a valid one.
    public init(
        pool: ConnectionPool,
        maximumBatchEvents: Int = 4000,
        batchObserver: (@Sendable (Int) -> Void)? = nil,
        appendObserver: (@Sendable ([EventType]) -> Void)? = nil,
        writeObserver: (@Sendable ([Result<AppendResult, StoreError>]) -> Void)? = nil,
        authenticator: EventAuthenticator? = nil
    ) {
        self.pool = pool
        self.appendObserver = appendObserver
        self.writeObserver = writeObserver
        self.authenticator = authenticator
        let integrity = LogIntegrityStatus()
        self.integrity = integrity
        self.sealer = Sealer(pool: pool, authenticator: authenticator, integrity: integrity)
        self.writer = GroupCommitWriter(
            pool: pool,
            sealer: self.sealer,
            maximumBatchEvents: maximumBatchEvents,
            batchObserver: batchObserver,
            authenticator: authenticator
        )
    }

    /// Validates and appends one command; returns after COMMIT, before the events are sealed (their
    /// positions are nil unless they were stored and sealed earlier).
    /// - Throws: ``WrongExpectedVersion``, ``InvalidEvent``, or ``StoreError`` `.connectionFailed` or `.server`.
    @discardableResult
    public func append(_ command: AppendCommand) async throws -> AppendResult {
        do {
            let prepared = try Self.prepare(command)
            guard let result = await self.submit([prepared]).first else {
                throw StoreError(.server, "the writer returned no result")
            }
            let appended = try result.get()
            self.observe(prepared, appended)
            return appended
        } catch let error as StoreError {
            throw error.asAppendFailure
        }
    }

    /// ``appendTogether(_:)`` with the errors of ``append(_:)``.
    public func appendEach(_ commands: [AppendCommand]) async -> [Result<AppendResult, any Error>] {
        await self.appendTogether(commands).map { $0.mapError(\.asAppendFailure) }
    }

    /// Hands `commands` to the writer and tells the write observer how each went.
    private func submit(_ commands: [PreparedCommand]) async -> [Result<AppendResult, StoreError>] {
        guard !commands.isEmpty else { return [] }
        let results = await self.writer.submit(commands)
        self.writeObserver?(results)
        return results
    }

    /// Tells the append observer which of `command`'s events were stored, and the request's collector
    /// (``AppendedEvents``) every event of it.
    private func observe(_ command: PreparedCommand, _ result: AppendResult) {
        AppendedEvents.current?.add(result.events.map(\.eventID))
        guard let observer = self.appendObserver else { return }
        observer(zip(command.events, result.events).filter { !$0.1.wasAlreadyStored }.map(\.0.type))
    }

    /// Appends several commands in one batch (one transaction); each succeeds or fails on its own.
    public func appendTogether(_ commands: [AppendCommand]) async -> [Result<AppendResult, StoreError>] {
        var valid: [PreparedCommand] = []
        var failures: [Int: StoreError] = [:]
        for (index, command) in commands.enumerated() {
            do {
                valid.append(try Self.prepare(command))
            } catch {
                failures[index] = (error as? StoreError) ?? StoreError(.invalidEvent, "\(error)")
            }
        }
        var written = await self.submit(valid)[...]
        var submitted = valid[...]
        return commands.indices.map { index in
            if let failure = failures[index] { return .failure(failure) }
            let result = written.popFirst() ?? .failure(StoreError(.server, "the writer returned no result"))
            if let command = submitted.popFirst(), case .success(let appended) = result {
                self.observe(command, appended)
            }
            return result
        }
    }

    /// Appends several commands in one batch as ``appendTogether(_:)`` does, then waits until their events
    /// are sealed and answers with their positions.
    public func appendSealed(_ commands: [AppendCommand]) async -> [Result<AppendResult, StoreError>] {
        let results = await self.appendTogether(commands)
        let ids = results.flatMap { (try? $0.get())?.events.filter { $0.position == nil }.map(\.eventID) ?? [] }
        guard !ids.isEmpty else { return results }
        let positions: [UUID: Int64]
        do {
            try await self.sealer.sealPending()
            positions = try await self.positions(of: ids)
        } catch {
            let failure = (error as? StoreError) ?? StoreError(.server, "\(error)")
            let unsealed = StoreError(failure.code, "committed, but not sealed yet: \(failure.message)")
            return results.map { result in result.flatMap { _ in .failure(unsealed) } }
        }
        return results.map { result in
            result.map { appended in
                var sealed = appended
                for index in sealed.events.indices where sealed.events[index].position == nil {
                    sealed.events[index].position = positions[sealed.events[index].eventID]
                }
                return sealed
            }
        }
    }

    /// Returns once every event committed before the call is sealed (queued rows the sealer refused are
    /// recorded as `audit.events_refused`).
    /// - Throws: ``StoreError`` when the database cannot be reached.
    public func sealPending() async throws {
        try await self.sealer.sealPending()
        if try await RefusedEvents.record(into: self) { try await self.sealer.sealPending() }
    }

    /// Records the queue rows the sealer refused for their MAC as `audit.events_refused` (``RefusedEvents``).
    /// - Throws: ``StoreError`` from the database.
    public func recordRefusedEvents() async throws {
        _ = try await RefusedEvents.record(into: self)
    }

    /// The lowest and highest position among the sealed events of `ids`, and how many of them are sealed (nil
    /// when none is): one aggregate, so a large batch is acknowledged without reading each event's position.
    /// - Throws: ``StoreError`` from the database.
    public func sealedSpan(of ids: [UUID]) async throws -> (first: Int64, last: Int64, count: Int)? {
        let rows = try await self.pool.withConnection { connection in
            var query: SQLQuery = "SELECT min(position), max(position), count(*) FROM authlog.log_leaves"
            let placeholder = query.bind(ArrayLiteral(ids))
            query.append(unescaped: " WHERE event_id = ANY(\(placeholder)::uuid[])")
            return try await connection.query(query)
        }
        guard let row = rows.rows.first, let first = try row.decode(Int64?.self, at: 0),
            let last = try row.decode(Int64?.self, at: 1)
        else { return nil }
        return (first, last, Int(try row.decode(Int64.self, at: 2)))
    }

    private func positions(of ids: [UUID]) async throws -> [UUID: Int64] {
        let rows = try await self.pool.withConnection { connection in
            try await connection.query(
                "SELECT event_id::text, position FROM authlog.log_leaves WHERE event_id = ANY(\(ArrayLiteral(ids))::uuid[])"
            )
        }
        var positions: [UUID: Int64] = [:]
        for row in rows.rows {
            if let id = UUID(canonical: try row.decode(String.self, at: 0)) {
                positions[id] = try row.decode(Int64.self, at: 1)
            }
        }
        return positions
    }

    /// Validates every event and decides its projection changes, outside the batch's transaction.
    static func prepare(_ command: AppendCommand) throws -> PreparedCommand {
        var prepared = PreparedCommand(command: command)
        for (index, event) in command.events.enumerated() {
            do {
                let payload = try event.validatedPayload()
                prepared.projectionChanges.append(try ScopedChange.changes(of: event, decoded: payload))
            } catch {
                throw StoreError(.invalidEvent, "event \(index + 1): \(error)", eventIndex: index)
            }
        }
        if let successor = command.sealedSuccessor, let last = command.events.last {
            // After the last event's own changes, so the rotated row is in the state the change moves.
            prepared.projectionChanges[prepared.projectionChanges.count - 1].append(
                ScopedChange(change: .sealSuccessor(successor), userID: last.userID, sessionID: last.sessionID)
            )
        }
        return prepared
    }
}
