import ArgumentParser
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTransparency
import Foundation

/// `authlog verify`.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Recompute the Merkle tree from the events and check every stored and outside checkpoint.",
        discussion: """
            Checks each event's digest, leaf and stored tree nodes, the head, every signed checkpoint in the \
            database (its signature with the configured checkpoint key or --verifier-key, and its root), and every \
            root the log recorded in its audit.checkpoint_signed events. With --checkpoint FILE or \
            --checkpoint-dir DIR, notes kept outside the database, it also proves that the log still extends each: \
            rollback, forks, rewriting and re-signing without the key are caught. Notes may be signed by the \
            current key or one in log.previous_checkpoint_verifier_keys (or any --verifier-key); the verdict names \
            the key that signed each. Exit 1 names the first bad position (or the forked size); exit 4 says that \
            notes are signed by an unknown key while the log is intact; exit 5 (with --witness-policy) that no \
            stored checkpoint is witnessed; exit 6 that everything else checked out but the events' MACs were not \
            checked, because this process has no event key (AUTHLOG_EVENT_KEY). When no note kept outside covers \
            the last events, a second line says that a truncation of them would not be seen.
            """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var replica: ReadReplicaOptions
    @OptionGroup var key: CheckpointKeyOptions

    @Option(name: .long, help: ArgumentHelp("A signed checkpoint note kept outside the database.", valueName: "file"))
    var checkpoint: String?

    @Option(
        name: .long,
        help: ArgumentHelp("A directory of notes kept outside (every *.note in it is checked).", valueName: "dir")
    )
    var checkpointDir: String?

    @Option(
        help: ArgumentHelp(
            "A witness policy (C2SP tlog-policy, or the old `witness <vkey>` and `quorum <k>` lines): also name "
                + "the newest witnessed checkpoint.",
            valueName: "file"
        )
    )
    var witnessPolicy: String?

    func run() async throws {
        var outsideNotes: [LogVerifier.OutsideNote] = []
        if let path = self.checkpoint {
            guard let data = BoundedFile.contents(atPath: path, limit: OutsideNotes.noteLimit) else {
                printError("cannot read the checkpoint \(path) (or it is larger than 64 KiB)")
                throw ExitCode(2)
            }
            outsideNotes.append(
                .init(source: "the outside checkpoint", note: String(decoding: data, as: UTF8.self), isRequired: true)
            )
        }
        if let directory = self.checkpointDir {
            outsideNotes += try OutsideNotes.read(directory: directory)
        }
        let policy = try self.witnessPolicy.map(Self.policy(at:))
        // Without a key of its own, verify checks the stored notes with the policy's log keys (a checkpoint counts
        // only when one of them signed it); with one, the policy must accept that key.
        let keyring = try self.key.keyring() ?? policy.flatMap { $0.logs.isEmpty ? nil : $0.logKeyring }
        if let policy, let path = self.witnessPolicy, let key = keyring?.keys.first, !policy.acceptsLog(key) {
            let listed = policy.logs.map { NoteKeyring.keyID(of: $0.verifier) }.joined(separator: ", ")
            printError(
                "\(path): the policy's log lines list \(listed), not the checkpoint key \(NoteKeyring.keyID(of: key)) "
                    + "(\(key.verifierKey)): its quorum says nothing of this log's checkpoints"
            )
            throw ExitCode(2)
        }
        if keyring == nil, !outsideNotes.isEmpty {
            // Without a key a note's signature cannot be checked: that says nothing of the log, so it is not
            // "broken" (exit 1) but a question asked without what it needs.
            printError(
                "cannot check the checkpoint notes without the key that signed them: give --config with "
                    + "log.checkpoint_key_file, set AUTHLOG_CHECKPOINT_KEY, or give --verifier-key FILE"
            )
            throw ExitCode(2)
        }
        let eventKey = try eventAuthenticator()
        let target = try await self.database.readTarget(self.replica)
        // A replica that has not replayed the outside checkpoint yet would look truncated: the primary answers.
        let outsideSize =
            outsideNotes.compactMap { $0.note.split(separator: "\n").dropFirst().first.flatMap { Int64($0) } }.max()
            ?? 0
        let (connection, lag, head) = try await target.open { connection, lag in
            let head = try await EventReader().head(on: connection).size
            guard lag == nil || outsideSize <= head else {
                throw StoreError(.outOfRange, "the log has \(head) events, the checkpoint \(outsideSize)")
            }
            return head
        }
        let progress = try await ProgressLine.overLog(label: "verified", on: connection)
        let report = try await reportingStoreErrors {
            try await LogVerifier(keys: keyring, eventKey: eventKey).verify(on: connection, outsideNotes: outsideNotes)
            {
                progress.update($0)
            }
        }
        progress.finish()
        // Verifying reads every event: it is recorded like any other read of the log, before the verdict.
        let what =
            "verify" + (self.checkpoint == nil ? "" : " checkpoint=outside")
            + (self.checkpointDir == nil
                ? "" : " checkpoint_dir=\(outsideNotes.count - (self.checkpoint == nil ? 0 : 1))")
        do {
            try await AccessRecord.append(what, lag: lag, conninfo: target.primary)
        } catch let error as StoreError where error.code == .eventKey && eventKey == nil {
            // Without the key nothing can be appended to an authenticated log; the verdict still counts.
            printError(
                "this verification is not recorded: the log authenticates its events, and only a process with the "
                    + "event key (AUTHLOG_EVENT_KEY) may append to it"
            )
        } catch let error as StoreError {
            try await reportingStoreErrors { () async throws -> Void in throw error }
        }
        print(report.summary(keyName: keyring?.keys.first?.name))
        guard case .intact(_, _, _, _, _, let macsUnchecked, _, _) = report else { throw ExitCode(report.exitStatus) }
        let covered = outsideNotes.isEmpty ? 0 : min(outsideSize, head)
        if covered < head {
            print(
                "not covered: no note kept outside covers positions \(covered + 1)…\(head), so a truncation of them "
                    + "would not be seen (keep notes with --checkpoint-dir, or give a witness's cosigned checkpoint "
                    + "with --checkpoint)"
            )
        }
        if macsUnchecked {
            print(
                "MACs not checked: this process has no event key (AUTHLOG_EVENT_KEY), so an event forged with a "
                    + "recomputed digest would pass; every other check ran"
            )
        }
        var status: Int32 = 0
        if let policy {
            let witnessed = try await reportingStoreErrors {
                try await WitnessedCheckpoints.check(policy, on: connection)
            }
            status = try Self.report(witnessed, quorum: policy.quorum)
        }
        if status == 0, macsUnchecked { status = 6 }
        if status != 0 { throw ExitCode(status) }
    }

    private static func policy(at path: String) throws -> WitnessPolicy {
        guard let data = BoundedFile.contents(atPath: path, limit: WitnessPolicy.maximumBytes) else {
            printError("cannot read the witness policy \(path) (or it is larger than 64 KiB)")
            throw ExitCode(2)
        }
        do {
            return try WitnessPolicy(text: String(decoding: data, as: UTF8.self))
        } catch {
            printError("\(path): \(error)")
            throw ExitCode(2)
        }
    }

    /// Prints what the policy says of the stored checkpoints; returns 5 when no checkpoint is witnessed, else 0.
    /// With `quorum none` the latest checkpoint is witnessed without any cosignature.
    /// - Throws: `ExitCode(1)` for a stored cosignature that does not verify.
    private static func report(_ witnessed: WitnessedCheckpoints, quorum: WitnessPolicy.Quorum) throws -> Int32 {
        if let bad = witnessed.invalid.first {
            print(
                "log broken: the stored cosignature of \(bad.witness) on the checkpoint of \(bad.size) events does "
                    + "not verify (\(witnessed.invalid.count) such cosignatures)"
            )
            throw ExitCode(1)
        }
        guard let newest = witnessed.newest else {
            print("not witnessed: no stored checkpoint meets the policy's quorum (\(quorum))")
            return 5
        }
        let age = max(0, Int64(Date().timeIntervalSince1970) - newest.signedAt)
        let behind =
            newest.size == witnessed.latestSize
            ? "it is the latest checkpoint"
            : "the latest checkpoint (\(witnessed.latestSize) events) is not witnessed yet"
        let cosigned =
            newest.witnesses.isEmpty
            ? "needs no cosignature" : "is cosigned by \(newest.witnesses.joined(separator: ", "))"
        print(
            "witnessed: the checkpoint of \(newest.size) events, signed \(age) s ago, \(cosigned) (quorum \(quorum)); "
                + behind
        )
        return 0
    }
}

/// The notes of a `--checkpoint-dir`: every `*.note` file in it, named by its path.
enum OutsideNotes {
    /// The most notes one directory may hold.
    static let limit = 100_000
    /// The largest note file read.
    static let noteLimit = 64 * 1024

    static func read(directory: String) throws -> [LogVerifier.OutsideNote] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".note") }
        } catch {
            printError("cannot read the checkpoint directory \(directory)")
            throw ExitCode(2)
        }
        guard names.count <= Self.limit else {
            printError("\(directory) holds more than \(Self.limit) notes")
            throw ExitCode(2)
        }
        return try names.sorted().map { name in
            let path = "\(directory)/\(name)"
            guard let data = BoundedFile.contents(atPath: path, limit: Self.noteLimit) else {
                printError("cannot read the checkpoint \(path) (or it is larger than 64 KiB)")
                throw ExitCode(2)
            }
            return .init(source: path, note: String(decoding: data, as: UTF8.self), isRequired: false)
        }
    }
}
