public import AuthlogCore
import Synchronization

/// What this process's signer and sealer found wrong with the log, for `/readyz`, `/metrics` and alerts: the
/// signer's current refusal (cleared by the next checkpoint it signs), refusals by reason, queued rows the
/// sealer refused for their MAC, and the sealer's queue as last seen.
public final class LogIntegrityStatus: Sendable {
    /// A snapshot.
    public struct Snapshot: Sendable, Equatable {
        /// The signer's refusal in force: it has signed nothing since.
        public var refusal: CheckpointRefusal?
        /// Refusals so far, by reason.
        public var refusals: [AuditCheckpointRefused.Reason: Int] = [:]
        /// The size of the last checkpoint signed or found signed (0: none yet).
        public var lastSignedSize: Int64 = 0
        /// Queued rows the sealer refused because their MAC was missing or wrong.
        public var refusedEvents: Int = 0
        /// Attempts to sign a due checkpoint that failed in a row for a reason of the signer's own (its files,
        /// its key; `audit.checkpoint_failing`), since the last checkpoint signed.
        public var signingFailures: Int = 0
        /// The events queued for sealing at the last look (the queue's span: an upper bound; -1: the look failed).
        public var unsealedEvents: Int64 = 0
        /// How long the entry at the head of the queue had stayed there then, as this process saw it, in seconds
        /// (0: none; -1: the look failed).
        public var oldestUnsealedWaitSeconds: Int64 = 0
    }

    private let state = Mutex(Snapshot())

    /// A status with nothing wrong.
    public init() {}

    /// The current snapshot.
    public var snapshot: Snapshot { self.state.withLock { $0 } }

    /// Notes a refusal of the signer.
    public func refused(_ refusal: CheckpointRefusal) {
        self.state.withLock { state in
            state.refusal = refusal
            state.refusals[refusal.reason, default: 0] += 1
        }
    }

    /// Notes a checkpoint signed (or found signed) at `size`: the signer is no longer refusing.
    public func signed(size: Int64) {
        self.state.withLock { state in
            state.refusal = nil
            state.signingFailures = 0
            state.lastSignedSize = max(state.lastSignedSize, size)
        }
    }

    /// Notes an attempt to sign that failed for a reason of the signer's own.
    public func signingFailed() {
        self.state.withLock { $0.signingFailures += 1 }
    }

    /// Notes what a look at the sealer's queue found: its span and its oldest event's wait in seconds.
    public func queued(events: Int64, oldestWaitSeconds: Int64) {
        self.state.withLock { state in
            state.unsealedEvents = events
            state.oldestUnsealedWaitSeconds = oldestWaitSeconds
        }
    }

    /// Notes queued rows refused by the sealer.
    public func refusedEvents(_ count: Int) {
        self.state.withLock { $0.refusedEvents += count }
    }
}
