import AuthlogCrypto
import AuthlogTransparency
import Foundation

/// One log a witness witnesses: its trusted keys and the latest checkpoint cosigned for it. The actor is the
/// one lock of the log: `add` checks the old size against the stored one, verifies, persists and cosigns
/// without suspending, so of two requests from the same old size only the first is cosigned. The persist
/// (write, fsync, rename, fsync of the directory) runs on the actor's thread on purpose: it must happen inside
/// the lock and before the answer. A persist that fails answers 500; when only the directory's flush failed, the
/// file already holds the new note, and the log's memory moves to it too, so memory and disk never disagree.
actor WitnessedLog {
    /// The log's origin.
    nonisolated let origin: String
    /// The log's trusted note keys.
    nonisolated let verifiers: [NoteVerifier]
    private let file: WitnessStateFile
    private var latest: (checkpoint: Checkpoint, note: String)?

    /// The log `origin` with the `verifiers`, its state read from `directory`.
    /// - Throws: ``WitnessStateError`` when the stored state is unreadable.
    init(origin: String, verifiers: [NoteVerifier], directory: String) throws {
        try self.init(
            origin: origin,
            verifiers: verifiers,
            file: WitnessStateFile(directory: directory, origin: origin)
        )
    }

    /// The log `origin` with the `verifiers`, its state kept in `file`.
    /// - Throws: ``WitnessStateError`` when the stored state is unreadable.
    init(origin: String, verifiers: [NoteVerifier], file: WitnessStateFile) throws {
        self.origin = origin
        self.verifiers = verifiers
        self.file = file
        self.latest = try file.read()
    }

    /// The latest cosigned note, for the monitoring endpoint.
    var latestNote: String? { self.latest?.note }

    /// The size of the latest cosigned checkpoint (0 when none).
    var size: Int64 { self.latest?.checkpoint.size ?? 0 }

    /// Checks a request whose log signature has verified against the stored state and cosigns it.
    func add(_ request: AddCheckpointRequest, signer: CosignatureSigner, time: UInt64) -> WitnessAnswer {
        let stored = self.latest?.checkpoint
        let storedSize = stored?.size ?? 0
        guard request.oldSize == storedSize else { return .conflict(knownSize: storedSize) }
        let checkpoint = request.checkpoint
        if checkpoint.size == 0, checkpoint.root != MerkleTree.emptyRoot {
            return .inconsistent("a checkpoint of size 0 must have the empty tree's root")
        }
        if request.oldSize == 0, !request.proof.isEmpty {
            return .inconsistent("the consistency proof must be empty when the old size is 0")
        }
        if let stored, request.oldSize > 0 {
            do {
                try ConsistencyVerifier.verify(
                    oldSize: stored.size,
                    oldRoot: stored.root,
                    newSize: checkpoint.size,
                    newRoot: checkpoint.root,
                    proof: request.proof
                )
            } catch {
                if stored.size == checkpoint.size {
                    return .inconsistent("the checkpoint has the cosigned size with another root hash")
                }
                return .inconsistent("the consistency proof does not verify: \(error)")
            }
        }
        let line: String
        do {
            line = try signer.cosign(body: request.note.body, time: time)
        } catch {
            return .storageFailed()
        }
        let note = request.note.text + line
        do {
            try self.file.write(note)
        } catch {
            // Renamed but not flushed: the file holds the new note, and a restart would read it. Memory follows the
            // disk, so the next request is checked against that note, never cosigned again from the old size.
            if error.code == .notDurable { self.latest = (checkpoint, note) }
            return .storageFailed()
        }
        self.latest = (checkpoint, note)
        return .cosigned(line)
    }
}
