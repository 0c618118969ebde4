public import AuthlogCore
import Foundation

/// An ``EventStore`` in memory for rule tests: it validates events as `PostgresEventStore` does, applies the
/// same append rules (expected versions, stream versions, idempotent replay by `event_id`, all or nothing per
/// command) and the same ``ProjectionReducer`` changes to in-memory projection tables, which the in-memory
/// ports (``InMemoryStores``) read.
///
/// Unlike PostgreSQL it gives every stored event its position at once.
public final class InMemoryEventStore: EventStore {
    let storage: InMemoryStorage

    /// Creates an empty store with its own state; ``InMemoryStores`` makes one that shares its state with
    /// the ports.
    public convenience init() { self.init(storage: InMemoryStorage()) }

    init(storage: InMemoryStorage) { self.storage = storage }

    /// Validates and appends one command.
    /// - Throws: ``WrongExpectedVersion`` when an expectation or an explicit stream version does not hold;
    ///   ``InvalidEvent`` when an event fails validation. Nothing of a failing command is stored.
    @discardableResult
    public func append(_ command: AppendCommand) async throws -> AppendResult {
        try self.appendNow(command)
    }

    /// Appends several commands in order; each succeeds or fails on its own.
    public func appendEach(_ commands: [AppendCommand]) async -> [Result<AppendResult, any Error>] {
        commands.map { command in Result { try self.appendNow(command) } }
    }

    /// Every stored envelope, in position order (the first has position 1), with its `streamVersion` set.
    public var events: [EventEnvelope] {
        self.storage.withState { $0.log.envelopes }
    }

    /// The stored envelopes of one type, in position order.
    public func events(ofType type: EventType) -> [EventEnvelope] {
        self.storage.withState { $0.log.envelopes.filter { $0.type == type } }
    }

    /// The current version of `stream`: 0 when it has no events.
    public func version(of stream: StreamName) -> Int32 {
        self.storage.withState { $0.log.version(of: stream.rawValue) }
    }

    /// Places the command and applies its changes under the lock, then tells the request's collector
    /// (``AppendedEvents``) every event of it, as `PostgresEventStore` does. A command's DPoP proof is checked
    /// once its expectations hold, and recorded with its events.
    private func appendNow(_ command: AppendCommand) throws -> AppendResult {
        let changes = try Self.prepare(command)
        if let claim = command.dpopProof, claim.proofHash.count != 32 {
            throw InMemoryConstraintViolation("dpop_proofs: proof_hash must be 32 bytes")
        }
        let result = try self.storage.withState { (state) throws -> AppendResult in
            if let claim = command.dpopProof {
                let log = state.log
                if let unmet = command.unmetExpectation(version: { log.version(of: $0) }) { throw unmet }
                guard state.tables.dpopProofs[claim.proofHash] == nil else { throw DPoPProofReplayed() }
            }
            let placed = try state.log.place(command, changes: changes)
            for change in placed.changes { state.projections.apply(change) }
            if let claim = command.dpopProof { state.tables.dpopProofs[claim.proofHash] = claim.expiresAt }
            return placed.result
        }
        AppendedEvents.current?.add(result.events.map(\.eventID))
        return result
    }

    /// Validates every event and decides its projection changes, as `PostgresEventStore.prepare` does.
    private static func prepare(_ command: AppendCommand) throws(InvalidEvent) -> [[ProjectionChange]] {
        var changes: [[ProjectionChange]] = []
        for (index, event) in command.events.enumerated() {
            do {
                let payload = try event.validatedPayload()
                changes.append(try ProjectionReducer.changes(for: event, decoded: payload))
            } catch {
                throw InvalidEvent("event \(index + 1): \(error)", eventIndex: index)
            }
        }
        if let successor = command.sealedSuccessor, !changes.isEmpty {
            // After the last event's own changes, as `PostgresEventStore.prepare` places it.
            changes[changes.count - 1].append(.sealSuccessor(successor))
        }
        return changes
    }
}
