/// Verifies receipt batches under one log key and one witness policy, remembering the last note it verified: a
/// batch against that same note (verbatim, cosignatures included) skips the note's signature checks — the log's
/// and every witness's, most of what a small batch costs — and checks only its events and proof.
///
/// What a remembered note proves cannot change: the checks are a function of the note's text, the key and the
/// policy, and the key and policy are fixed for the verifier's life.
public struct ReceiptBatchVerifier: Sendable {
    /// The log's key.
    public let logKey: NoteVerifier
    /// The witness policy, if any.
    public let policy: WitnessPolicy?
    private var last: ReceiptBatch.VerifiedNote?

    /// A verifier for the log `logKey` with the witnesses of `policy`.
    public init(logKey: NoteVerifier, policy: WitnessPolicy?) {
        self.logKey = logKey
        self.policy = policy
    }

    /// What ``ReceiptBatch/verify(logKey:policy:)`` gives for `batch`, checking its note only when it is not the
    /// note last verified.
    /// - Throws: ``ReceiptBatch/Failure``.
    public mutating func verify(_ batch: ReceiptBatch) throws(ReceiptBatch.Failure) -> ReceiptBatch.Verified {
        let note: ReceiptBatch.VerifiedNote
        if let last = self.last, last.note == batch.note {
            note = last
        } else {
            note = try ReceiptBatch.verifiedNote(batch.note, logKey: self.logKey, policy: self.policy)
            self.last = note
        }
        return try batch.verify(against: note, crypto: self.logKey.crypto)
    }

    /// The checkpoint of `note` when it is the note last verified (its signature checked under ``logKey``).
    public func checkpoint(ifVerified note: String) -> Checkpoint? {
        guard let last = self.last, last.note == note else { return nil }
        return last.checkpoint
    }
}
