import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTransparency
import Foundation
import Synchronization

/// A checkpoint signer signing every second beside a benchmark's writers, as `serve` does at a one-second
/// interval, its state kept in a temporary directory.
final class CheckpointSigning: Sendable {
    private let task: Mutex<Task<Int, Never>?> = Mutex(nil)

    /// Starts signing checkpoints of `database` every second, with the writers' event key.
    static func start(database: BenchDatabase, authenticator: EventAuthenticator?) throws -> CheckpointSigning {
        let signing = CheckpointSigning()
        let store = PostgresEventStore(
            pool: ConnectionPool(conninfo: database.conninfo, maximumConnections: 2),
            authenticator: authenticator
        )
        let checkpointer = Checkpointer(
            store: store,
            signer: try NoteSigner(name: "bench.localhost/log", key: try PrivateKey.generate(for: .edDSA)),
            directory: NSTemporaryDirectory() + "authlog-bench-notes-\(UUID().uuidString)"
        )
        signing.task.withLock {
            $0 = Task {
                var signed = 0
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    do {
                        if try await checkpointer.signNow().isNew { signed += 1 }
                    } catch {
                        say("  checkpoint not signed: \(error)")
                    }
                }
                return signed
            }
        }
        return signing
    }

    /// Stops signing; returns how many checkpoints were signed.
    func stop() async -> Int {
        guard let task = self.task.withLock({ $0 }) else { return 0 }
        task.cancel()
        return await task.value
    }
}
