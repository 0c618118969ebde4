import AuthlogCore
import AuthlogPostgres
import Foundation

/// The decisions of one batch, made without a database: given the stream versions and stored event ids the
/// batch's lookup found, it decides each command in order (its expected versions, the versions of its
/// events, which events are idempotent replays) and collects the rows to insert and the projection changes
/// to apply. A command that fails leaves nothing behind; the others are unaffected.
struct BatchPlan {
    /// The commit time every row of the batch carries.
    let recordedAt: Timestamp
    /// The rows to insert, in order.
    private(set) var rows: [EventRow.Committed] = []
    /// The projection changes of the placed rows, in order.
    private(set) var changes: [ScopedChange] = []
    /// One result per command: the placed events (without positions) or the failure.
    private(set) var results: [Result<AppendResult, StoreError>] = []

    /// The DPoP proofs the placed commands record, in order.
    private(set) var dpopProofs: [DPoPProofClaim] = []

    private var streamVersions: [String: Int32]
    private var knownEvents: [UUID: AppendedEvent]
    /// Proofs recorded before (the lookup's) or by a command placed earlier in this batch.
    private var recordedProofs: Set<[UInt8]>

    /// Decides `commands` against the current `streamVersions` (absent: no events), the events already
    /// stored, by id, and the DPoP proofs already recorded among those the commands carry.
    init(
        commands: [PreparedCommand],
        streamVersions: [String: Int32],
        knownEvents: [UUID: AppendedEvent],
        recordedProofs: Set<[UInt8]> = [],
        recordedAt: Timestamp
    ) {
        self.recordedAt = recordedAt
        self.streamVersions = streamVersions
        self.knownEvents = knownEvents
        self.recordedProofs = recordedProofs
        for command in commands {
            self.results.append(self.place(command))
        }
    }

    private mutating func place(_ command: PreparedCommand) -> Result<AppendResult, StoreError> {
        var versions: [String: Int32] = [:]
        func version(of stream: String) -> Int32 { versions[stream] ?? self.streamVersions[stream] ?? 0 }

        if let unmet = command.command.unmetExpectation(version: version(of:)) {
            return .failure(StoreError(.wrongExpectedVersion, unmet.message))
        }
        let claim = command.command.dpopProof
        if let claim, self.recordedProofs.contains(claim.proofHash) {
            return .failure(StoreError(.dpopProofReplayed, "the command's DPoP proof was recorded before"))
        }
        var placedHere: [UUID: AppendedEvent] = [:]
        var rows: [EventRow.Committed] = []
        var changes: [ScopedChange] = []
        var appended: [AppendedEvent] = []
        for (index, var event) in command.events.enumerated() {
            if let known = placedHere[event.eventID] ?? self.knownEvents[event.eventID] {
                appended.append(known)
                continue
            }
            let current = version(of: event.stream.rawValue)
            if let misplaced = command.command.misplacedEvent(at: index, streamAt: current) {
                return .failure(StoreError(.wrongExpectedVersion, misplaced.message, eventIndex: index))
            }
            event.streamVersion = current + 1
            versions[event.stream.rawValue] = current + 1
            precondition(index < command.projectionChanges.count, "PostgresEventStore prepares every command it queues")
            rows.append(
                EventRow.Committed(
                    envelope: event,
                    recordedAt: self.recordedAt,
                    changes: command.projectionChanges[index]
                )
            )
            changes += command.projectionChanges[index]
            let placed = AppendedEvent(
                eventID: event.eventID,
                position: nil,
                streamVersion: current + 1,
                wasAlreadyStored: false
            )
            placedHere[event.eventID] = placed
            appended.append(placed)
        }
        self.rows += rows
        self.changes += changes
        if let claim {
            self.dpopProofs.append(claim)
            self.recordedProofs.insert(claim.proofHash)
        }
        self.streamVersions.merge(versions) { _, new in new }
        for (id, placed) in placedHere {
            var stored = placed
            stored.wasAlreadyStored = true
            self.knownEvents[id] = stored
        }
        return .success(AppendResult(events: appended))
    }
}
