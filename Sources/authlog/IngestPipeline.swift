import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation

/// The commit loop of `authlog append`, in three overlapping steps: while batch N is sealed (the sealer's
/// connection), batch N+1 is committed (the writer's) and batch N+2 is read and parsed (another core). Each batch
/// is acknowledged on standard output after its seal, in order; memory holds three batches at most.
struct IngestPipeline {
    /// A batch committed and waiting for its seal.
    struct Committed: Sendable {
        var firstLine: Int
        var lastLine: Int
        /// The events this commit stored, and any found stored by another process and not sealed yet.
        var unsealed: [UUID]
        /// The positions of the events found stored and sealed already.
        var sealedBefore: [Int64]
        var stored: Int
        var alreadyStored: Int
    }

    /// Why the loop stopped before the end of the input, with what it has said on standard error already.
    struct Stopped: Error {
        var exitCode: Int32
    }

    let store: PostgresEventStore
    let size: Int

    /// How many committed batches may wait for their seal while the next is committed: each holds only its
    /// events' identifiers, and the sealer seals them in one pass when they are many.
    static let sealWindow = 4

    /// Commits every batch of `batches`, acknowledging each after its seal.
    /// - Throws: ``Stopped`` after reporting a refused batch or a failed seal; ``JSONLineReader/Failure`` when the
    ///   spool cannot be read.
    func run(_ batches: IngestBatches) async throws {
        var batches = batches
        var chunk = try batches.next(size: self.size)
        var sealing: [(batch: Committed, task: Task<Acknowledgement, any Error>)] = []
        while !chunk.isEmpty {
            let following = Task { [batches, size] in
                var rest = batches
                let next = try rest.next(size: size)
                return (next, rest)
            }
            let committed: Committed
            do {
                committed = try await self.commit(chunk)
            } catch let error as StoreError {
                following.cancel()
                _ = try? await following.value
                // The batches committed before it are acknowledged first (or named, when their seal failed).
                var earlier: Stopped?
                do { try await Self.acknowledge(&sealing, keeping: 0) } catch let stopped as Stopped {
                    earlier = stopped
                }
                let line = error.eventIndex.map { chunk[$0].line }
                printError((line.map { "line \($0): " } ?? "") + error.description)
                printError("the events from line \(chunk[0].line) on were not stored")
                throw earlier ?? Stopped(exitCode: error.code == .connectionFailed ? 3 : 1)
            }
            sealing.append((committed, Task { [store] in try await Self.seal(committed, in: store) }))
            try await Self.acknowledge(&sealing, keeping: Self.sealWindow)
            do {
                (chunk, batches) = try await following.value
            } catch {
                // The spool could not be read back: what was committed is acknowledged before the error.
                try await Self.acknowledge(&sealing, keeping: 0)
                printError("the events from line \(committed.lastLine + 1) on were not stored")
                throw error
            }
        }
        try await Self.acknowledge(&sealing, keeping: 0)
    }

    /// Commits `chunk` in one transaction.
    /// - Throws: ``StoreError`` naming the event the store refused.
    private func commit(_ chunk: [(line: Int, event: EventEnvelope)]) async throws -> Committed {
        guard let written = await self.store.appendTogether([AppendCommand(events: chunk.map(\.event))]).first else {
            throw StoreError(.server, "the store returned no result")
        }
        let result = try written.get()
        // An id given twice (a producer's retry within the input) is one event: stored once, the other line
        // counted as already stored, and one position to wait for.
        let stored = Set(result.events.filter { !$0.wasAlreadyStored }.map(\.eventID)).count
        return Committed(
            firstLine: chunk[0].line,
            lastLine: chunk[chunk.count - 1].line,
            unsealed: Array(Set(result.events.filter { $0.position == nil }.map(\.eventID))),
            sealedBefore: result.events.compactMap(\.position),
            stored: stored,
            alreadyStored: result.events.count - stored
        )
    }

    /// Waits until every event of `batch` has a position and returns its acknowledgement.
    /// - Throws: ``StoreError`` when sealing fails, or when some of the batch's events are still not sealed.
    private static func seal(_ batch: Committed, in store: PostgresEventStore) async throws -> Acknowledgement {
        var first = batch.sealedBefore.min()
        var last = batch.sealedBefore.max()
        if !batch.unsealed.isEmpty {
            try await store.sealer.sealPending()
            let span = try await store.sealedSpan(of: batch.unsealed)
            guard let span, span.count == batch.unsealed.count else {
                let missing = batch.unsealed.count - (span?.count ?? 0)
                throw StoreError(.server, "\(missing) of the batch's events have no position after the seal")
            }
            first = min(first ?? span.first, span.first)
            last = max(last ?? span.last, span.last)
        }
        return Acknowledgement(
            firstLine: batch.firstLine,
            lastLine: batch.lastLine,
            firstPosition: first ?? 0,
            lastPosition: last ?? 0,
            stored: batch.stored,
            alreadyStored: batch.alreadyStored
        )
    }

    /// Prints, in order, the acknowledgements of the oldest batches of `sealing` until `keeping` are left, or,
    /// when a seal failed, which committed lines are not sealed yet.
    /// - Throws: ``Stopped`` when a seal failed.
    private static func acknowledge(
        _ sealing: inout [(batch: Committed, task: Task<Acknowledgement, any Error>)],
        keeping: Int
    ) async throws {
        while sealing.count > keeping {
            let (batch, task) = sealing.removeFirst()
            do {
                let acknowledgement = try await task.value
                FileHandle.standardOutput.write(Data((acknowledgement.jsonLine + "\n").utf8))
            } catch {
                let failure = (error as? StoreError) ?? StoreError(.server, "\(error)")
                let lastLine = sealing.last?.batch.lastLine ?? batch.lastLine
                printError("committed, but not sealed yet: \(failure.message)")
                printError(
                    "lines \(batch.firstLine)-\(lastLine) are stored and wait for their positions (the next append, "
                        + "or any authlog serve on this database, seals them); nothing after line \(lastLine) was stored"
                )
                throw Stopped(exitCode: failure.code == .connectionFailed ? 3 : 1)
            }
        }
    }
}
