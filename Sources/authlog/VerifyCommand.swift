import ArgumentParser
import AuthlogCore
import AuthlogStore

/// `authlog verify`.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the hash chain; exit 1 and name the first bad position when it is broken."
    )

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let connection = try await self.database.connect()
        let progress = ProgressLine(label: "verified")
        let report = try await reportingStoreErrors {
            try await ChainVerifier().verify(on: connection) { progress.update($0) }
        }
        progress.finish()
        switch report {
        case .intact(let events, let headHash):
            print("chain intact: \(events) events, head \(Hex.encode(headHash))")
        case .broken(let position, let reason):
            print("chain broken at position \(position): \(reason)")
            throw ExitCode(1)
        }
    }
}
