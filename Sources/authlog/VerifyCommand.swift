import ArgumentParser
import AuthlogCore
import AuthlogStore
import Foundation

/// `authlog verify`.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Recompute the Merkle tree from the events and check every stored and outside checkpoint.",
        discussion: """
            Checks each event's digest, leaf and stored tree nodes, the head, and every signed checkpoint in the \
            database (its signature with the configured checkpoint key or --verifier-key, and its root). With \
            --checkpoint FILE, a note kept outside the database, it also proves that the log still extends it: \
            truncation, rewriting and re-signing without the key are caught. Exit 1 names the first bad position.
            """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var replica: ReadReplicaOptions
    @OptionGroup var key: CheckpointKeyOptions

    @Option(name: .long, help: ArgumentHelp("A signed checkpoint note kept outside the database.", valueName: "file"))
    var checkpoint: String?

    func run() async throws {
        var outside: String?
        if let path = self.checkpoint {
            guard let data = FileManager.default.contents(atPath: path) else {
                printError("cannot read the checkpoint \(path)")
                throw ExitCode(2)
            }
            outside = String(decoding: data, as: UTF8.self)
        }
        let verifier = try self.key.verifier()
        let target = try await self.database.readTarget(self.replica)
        // A replica that has not replayed the outside checkpoint yet would look truncated: the primary answers.
        let outsideSize = outside.flatMap { $0.split(separator: "\n").dropFirst().first }.flatMap { Int64($0) } ?? 0
        let (connection, lag, _) = try await target.open { connection, lag in
            let head = try await EventReader().head(on: connection).size
            guard lag == nil || outsideSize <= head else {
                throw StoreError(.outOfRange, "the log has \(head) events, the checkpoint \(outsideSize)")
            }
            return head
        }
        let progress = try await ProgressLine.overLog(label: "verified", on: connection)
        let report = try await reportingStoreErrors {
            try await LogVerifier(key: verifier).verify(on: connection, outside: outside) { progress.update($0) }
        }
        progress.finish()
        // Verifying reads every event: it is recorded like any other read of the log, before the verdict.
        try await AccessRecord.record(
            "verify" + (outside == nil ? "" : " checkpoint=outside"),
            lag: lag,
            conninfo: target.primary
        )
        switch report {
        case .intact(let events, let root, let checkpoints):
            let signatures = verifier == nil ? " (signatures not checked: no checkpoint key)" : ""
            print(
                "log intact: \(events) events, root \(Data(root).base64EncodedString()), "
                    + "\(checkpoints) checkpoints match\(signatures)"
            )
        case .broken(let position, let reason):
            print("log broken at position \(position): \(reason)")
            throw ExitCode(1)
        }
    }
}
