import AuthlogCore
import AuthlogPostgres

/// The writer of one process: queues commands and writes them in batches, one transaction each (group
/// commit). While batches are being written, new commands queue up and form the next batch, so throughput
/// grows with concurrency while a lone command still commits at once.
///
/// Several batches are in flight at once, each on its own connection, and they share no lock: expected
/// versions meet in the unique `(stream, stream_version)` index (``BatchWriter``). Within the process, two
/// batches in flight never touch the same stream: a command whose stream a batch in flight is writing waits
/// for the next batch (so a busy stream such as `signin-apple` gathers its commands into one batch instead
/// of making concurrent batches collide on it). Callers are answered after their own COMMIT; the events then
/// wait in the queue for the ``Sealer``, which this writer wakes, unless the batch was alone and found the
/// sealer idle: then it sealed its own events in the same transaction (``BatchWriter``).
actor GroupCommitWriter {
    private struct Group {
        let commands: [PreparedCommand]
        let continuation: CheckedContinuation<[Result<AppendResult, StoreError>], Never>
        let eventCount: Int
        /// Every stream the group's commands write or expect, decided once: a group waiting for a busy
        /// stream is looked at again by every batch.
        let streams: Set<String>

        init(commands: [PreparedCommand], continuation: CheckedContinuation<[Result<AppendResult, StoreError>], Never>)
        {
            self.commands = commands
            self.continuation = continuation
            self.eventCount = commands.reduce(0) { $0 + $1.events.count }
            self.streams = commands.reduce(into: Set<String>()) { $0.formUnion($1.streams) }
        }
    }

    private let pool: ConnectionPool
    private let sealer: Sealer
    private let maximumBatchEvents: Int
    private let maximumBatchesInFlight: Int
    private var queue: [Group] = []
    private var writers = 0
    /// The streams the batches in flight write.
    private var busyStreams = Set<String>()
    private let batchObserver: (@Sendable (Int) -> Void)?
    private let authenticator: EventAuthenticator?

    init(
        pool: ConnectionPool,
        sealer: Sealer,
        maximumBatchEvents: Int = 4000,
        maximumBatchesInFlight: Int = 4,
        batchObserver: (@Sendable (Int) -> Void)? = nil,
        authenticator: EventAuthenticator? = nil
    ) {
        self.authenticator = authenticator
        self.pool = pool
        self.sealer = sealer
        self.batchObserver = batchObserver
        self.maximumBatchEvents = maximumBatchEvents
        self.maximumBatchesInFlight = max(1, min(maximumBatchesInFlight, pool.maximumConnections - 1))
    }

    /// Queues `commands` as one group, always written in the same batch, and waits for their results.
    func submit(_ commands: [PreparedCommand]) async -> [Result<AppendResult, StoreError>] {
        guard !commands.isEmpty else { return [] }
        return await withCheckedContinuation { continuation in
            self.queue.append(Group(commands: commands, continuation: continuation))
            if self.writers < self.maximumBatchesInFlight {
                self.writers += 1
                Task { await self.writeQueued() }
            }
        }
    }

    private func writeQueued() async {
        while !self.queue.isEmpty {
            // Callers answered by the previous batch get one turn to queue their next command, so that
            // the batches under steady load stay full instead of alternating between full and nearly empty.
            await Task.yield()
            // Another writer may have taken everything meanwhile, or everything left waits for its streams.
            let (batch, streams) = self.takeBatch()
            guard !batch.isEmpty else { break }
            self.batchObserver?(batch.reduce(0) { $0 + $1.eventCount })
            // Alone (no other batch in flight, nothing waiting), the batch may seal itself (BatchWriter).
            let alone = self.writers == 1 && self.queue.isEmpty
            var results = await self.write(batch.flatMap(\.commands), sealingWhenIdle: alone)[...]
            self.busyStreams.subtract(streams)
            if results.contains(where: Self.leftEventsUnsealed) { await self.sealer.wake() }
            for group in batch {
                group.continuation.resume(returning: Array(results.prefix(group.commands.count)))
                results = results.dropFirst(group.commands.count)
            }
        }
        self.writers -= 1
    }

    /// The queued groups, in order, that fit one batch and touch no stream a batch in flight writes. A group
    /// left waiting blocks its streams for the groups behind it, so no stream's commands overtake each other.
    private func takeBatch() -> (batch: [Group], streams: Set<String>) {
        var batch: [Group] = []
        var streams = Set<String>()
        var blocked = self.busyStreams
        var events = 0
        var remaining: [Group] = []
        for group in self.queue {
            let groupStreams = group.streams
            let fits = batch.isEmpty || events + group.eventCount <= self.maximumBatchEvents
            if fits && groupStreams.isDisjoint(with: blocked) {
                batch.append(group)
                events += group.eventCount
                streams.formUnion(groupStreams)
            } else {
                remaining.append(group)
                blocked.formUnion(groupStreams)
            }
        }
        self.queue = remaining
        self.busyStreams.formUnion(streams)
        return (batch, streams)
    }

    /// Whether a command's result has an event without a position: queued for the sealer (or found stored and
    /// not sealed yet), so the sealer is woken.
    private static func leftEventsUnsealed(_ result: Result<AppendResult, StoreError>) -> Bool {
        guard case .success(let appended) = result else { return false }
        return appended.events.contains { $0.position == nil }
    }

    private func write(
        _ commands: [PreparedCommand],
        sealingWhenIdle: Bool
    ) async -> [Result<AppendResult, StoreError>] {
        var lastError = StoreError(.connectionFailed, "PostgreSQL is unreachable")
        // A connection that broke while idle (a restarted server) fails in the opening round trip, before
        // anything is written; that is retried once on a fresh connection.
        for _ in 0..<2 {
            let connection: Connection
            do {
                connection = try await self.pool.acquire()
            } catch {
                lastError = (error as? StoreError) ?? lastError
                continue
            }
            let outcome = await BatchWriter.write(
                commands,
                sealingWhenIdle: sealingWhenIdle,
                authenticator: self.authenticator,
                on: connection
            )
            await self.pool.release(connection)
            switch outcome {
            case .written(let results): return results
            case .notStarted(let error): lastError = error
            }
        }
        return commands.map { _ in .failure(lastError) }
    }
}
