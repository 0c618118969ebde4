/// The writer of one process: queues commands and writes them in batches, one transaction each, under the
/// locked chain head (group commit). While a batch is being written, new commands queue up and form the
/// next batch, so throughput grows with concurrency while a lone command still commits at once.
///
/// Up to two batches are in flight, each on its own connection: the second one's `SELECT … FOR UPDATE`
/// waits in the server until the first commits, so positions stay gapless and in commit order (the row
/// lock decides), while the second batch's round trip and preparation overlap the first one's work.
/// Callers are answered only after their own COMMIT. Several processes may share a database: the head
/// row lock serialises all their batches.
actor Sequencer {
    private struct Group {
        let commands: [AppendCommand]
        let continuation: CheckedContinuation<[Result<AppendResult, StoreError>], Never>
        var eventCount: Int { self.commands.reduce(0) { $0 + $1.events.count } }
    }

    private let pool: ConnectionPool
    private let maximumBatchEvents: Int
    private let maximumBatchesInFlight: Int
    private var queue: [Group] = []
    private var writers = 0
    private let batchObserver: (@Sendable (Int) -> Void)?

    init(
        pool: ConnectionPool,
        maximumBatchEvents: Int = 4000,
        maximumBatchesInFlight: Int = 2,
        batchObserver: (@Sendable (Int) -> Void)? = nil
    ) {
        self.pool = pool
        self.batchObserver = batchObserver
        self.maximumBatchEvents = maximumBatchEvents
        self.maximumBatchesInFlight = min(maximumBatchesInFlight, pool.maximumConnections)
    }

    /// Queues `commands` as one group, always written in the same batch, and waits for their results.
    func submit(_ commands: [AppendCommand]) async -> [Result<AppendResult, StoreError>] {
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
            // The other writer may have taken everything meanwhile.
            guard !self.queue.isEmpty else { break }
            var batch: [Group] = []
            var events = 0
            while let group = self.queue.first, batch.isEmpty || events + group.eventCount <= self.maximumBatchEvents {
                self.queue.removeFirst()
                batch.append(group)
                events += group.eventCount
            }
            self.batchObserver?(events)
            var results = await self.write(batch.flatMap(\.commands))[...]
            for group in batch {
                group.continuation.resume(returning: Array(results.prefix(group.commands.count)))
                results = results.dropFirst(group.commands.count)
            }
        }
        self.writers -= 1
    }

    private func write(_ commands: [AppendCommand]) async -> [Result<AppendResult, StoreError>] {
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
            let outcome = await BatchWriter.write(commands, on: connection)
            await self.pool.release(connection)
            switch outcome {
            case .written(let results): return results
            case .notStarted(let error): lastError = error
            }
        }
        return commands.map { _ in .failure(lastError) }
    }
}
