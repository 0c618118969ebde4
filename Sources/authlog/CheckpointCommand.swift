import ArgumentParser
import AuthlogPostgres
import AuthlogServer
import AuthlogStore

/// `authlog checkpoint`: sign one now.
struct CheckpointCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkpoint",
        abstract: "Seal what is pending and sign a checkpoint of the log now; print the note.",
        discussion: """
            The key comes from AUTHLOG_CHECKPOINT_KEY or log.checkpoint_key_file in --config; the note is also \
            written into log.checkpoint_directory when set. A checkpoint of the same size is not signed twice.
            """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var key: CheckpointKeyOptions

    func run() async throws {
        let settings = try self.key.settings()
        guard let signer = settings.signer else {
            printError(
                "no checkpoint key: give --config with log.checkpoint_key_file, or set AUTHLOG_CHECKPOINT_KEY "
                    + "(`authlog keys generate --out DIR` makes one; the quick start's is in .authlog/quickstart.json)"
            )
            throw ExitCode(2)
        }
        let store = PostgresEventStore(
            pool: ConnectionPool(conninfo: try await self.database.conninfo(), maximumConnections: 3),
            authenticator: try eventAuthenticator()
        )
        let checkpointer = Checkpointer(
            store: store,
            signer: signer,
            previousKeys: settings.previousKeys,
            directory: settings.directory,
            statePath: settings.statePath
        )
        let signed: Checkpointer.Signed
        do {
            signed = try await reportingStoreErrors {
                // Under the servers' signing lock: never beside a server signing the same log.
                let signed = try await CheckpointScheduler.whileSigning(pool: store.pool) {
                    try await checkpointer.signNow()
                }
                try await store.sealPending()
                return signed
            }
        } catch let refusal as CheckpointRefusal {
            // Recorded as audit.checkpoint_refused before it was thrown.
            try? await store.sealPending()
            printError("refused: \(refusal.detail) (\(refusal.reason.rawValue); recorded as audit.checkpoint_refused)")
            throw ExitCode(4)
        }
        print(signed.note, terminator: "")
    }
}
