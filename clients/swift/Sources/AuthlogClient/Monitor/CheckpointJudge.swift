import AuthlogTransparency

/// The checkpoint the device keeps, with its note verbatim.
struct KeptCheckpoint: Sendable, Equatable {
    var note: String
    var checkpoint: Checkpoint
}

/// What a shown checkpoint means for the kept one.
enum CheckpointJudgement: Sendable, Equatable {
    /// The same tree: nothing changes.
    case same
    /// Keep the shown checkpoint instead: the first one, or a bigger one proven consistent.
    case adopt
    /// A smaller tree: ask the log for the proof that it is a prefix of the kept one.
    case needsOlderProof
    /// A contradiction: raise the alarm.
    case alarm(SplitViewAlarm.Reason, detail: String, proof: [[UInt8]]?)
    /// A malformed proof the log did not have to give: a bad answer, not evidence.
    case error(MonitorError)
}

/// Decides what a checkpoint the log showed means for the one the device keeps (RFC 9162 consistency): a
/// bigger tree must come with the proof that the kept one is its prefix, the same size must have the same
/// root, and a smaller tree must be proven a prefix of the kept one (``olderTree(kept:shown:proof:crypto:)``).
/// The kept checkpoint is never replaced by an unproven one.
enum CheckpointJudge {
    /// What `shown`, given with `consistency` (from the kept size the request sent), means for `kept`.
    static func judge(
        kept: KeptCheckpoint?,
        shown: Checkpoint,
        consistency: ReceiptsAnswer.Consistency,
        crypto: some TransparencyCrypto
    ) -> CheckpointJudgement {
        guard let kept else { return .adopt }
        let old = kept.checkpoint
        if shown.size > old.size {
            switch consistency {
            case .absent:
                // From an empty tree nothing needs proving; from any other the log had to give the proof.
                guard old.size == 0 else {
                    return .alarm(.unproven, detail: "The answer has no consistency proof.", proof: nil)
                }
                return .adopt
            case .malformed(let error):
                return .alarm(.inconsistent, detail: "The consistency proof is malformed: \(error).", proof: nil)
            case .hashes(let proof):
                do {
                    try ConsistencyVerifier.verify(
                        oldSize: old.size,
                        oldRoot: old.root,
                        newSize: shown.size,
                        newRoot: shown.root,
                        proof: proof,
                        crypto: crypto
                    )
                    return .adopt
                } catch {
                    return .alarm(.inconsistent, detail: "The consistency proof fails: \(error).", proof: proof)
                }
            }
        }
        if case .malformed(let error) = consistency { return .error(error) }
        if shown.size == old.size {
            guard shown.root == old.root else {
                return .alarm(.fork, detail: "Same size, different roots.", proof: nil)
            }
            return .same
        }
        return .needsOlderProof
    }

    /// Whether `proof` (from the proof route) shows the smaller `shown` tree is a prefix of `kept`: `.same` when
    /// it does, a rollback alarm when it does not.
    static func olderTree(
        kept: KeptCheckpoint,
        shown: Checkpoint,
        proof: [[UInt8]],
        crypto: some TransparencyCrypto
    ) -> CheckpointJudgement {
        do {
            try ConsistencyVerifier.verify(
                oldSize: shown.size,
                oldRoot: shown.root,
                newSize: kept.checkpoint.size,
                newRoot: kept.checkpoint.root,
                proof: proof,
                crypto: crypto
            )
            return .same
        } catch {
            return .alarm(
                .rollback,
                detail: "The proof that the shown tree is a prefix of the kept one fails: \(error).",
                proof: proof
            )
        }
    }
}
