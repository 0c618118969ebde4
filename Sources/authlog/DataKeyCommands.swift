import ArgumentParser
import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import Foundation

/// `authlog keys rewrap`: seals what the previous data keys sealed again under `data_key`.
struct RewrapDataKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewrap",
        abstract: "After a data_key rotation, seal every user key and provider credential again under data_key.",
        discussion: """
            Reads data_key and previous_data_keys (AUTHLOG_DATA_KEY, AUTHLOG_PREVIOUS_DATA_KEYS, or --config). \
            Each user's wrapped personal-data key and each sealed provider credential that a previous key sealed \
            is sealed again under data_key; no event is rewritten (personal data in events is sealed with the \
            users' own keys). Safe while servers run, and safe to run again. Exit 1 when rows open with no \
            configured key.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .long, help: ArgumentHelp("The configuration file (data keys).", valueName: "file"))
    var config: String?

    func run() async throws {
        let keys = try configuredDataKeys(self.config)
        guard let dataKey = keys.data, !keys.previous.isEmpty else {
            printError(
                "nothing to rewrap: set data_key to the new key and previous_data_keys to the old ones "
                    + "(AUTHLOG_DATA_KEY, AUTHLOG_PREVIOUS_DATA_KEYS)"
            )
            throw ExitCode(2)
        }
        let conninfo = try await self.database.conninfo()
        let tables = SealedRowStore(pool: ConnectionPool(conninfo: conninfo, maximumConnections: 1))
        let tally = try await reportingStoreErrors {
            try await DataKeyRewrap(dataKey: dataKey, previousKeys: keys.previous).run(on: tables)
        }
        print(
            "rewrapped \(tally.userKeys) user keys and \(tally.credentials) provider credentials under data_key; "
                + "\(tally.current) were under it already, \(tally.changed) changed meanwhile (run again)"
        )
        if tally.unopenable > 0 {
            printError("\(tally.unopenable) rows open with no configured data key; they were left as they are")
            throw ExitCode(1)
        }
    }
}

/// `authlog keys subject-key`: the subject key in force, to pin it before the data key changes.
struct SubjectKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subject-key",
        abstract: "Print the subject key in force (subject_key, or the one derived from data_key), base64url.",
        discussion: """
            Identities are found by HMAC-SHA-256 of their subjects under the subject key. Without subject_key it \
            is derived from data_key, so set subject_key (AUTHLOG_SUBJECT_KEY) to this output before rotating \
            data_key. The output is a secret: keep it where data_key is kept.
            """
    )

    @Option(name: .long, help: ArgumentHelp("The configuration file (data_key, subject_key).", valueName: "file"))
    var config: String?

    func run() async throws {
        let subject = try configuredDataKeys(self.config).subject
        guard let subject else {
            printError("no subject_key and no data_key (AUTHLOG_SUBJECT_KEY, AUTHLOG_DATA_KEY): nothing to print")
            throw ExitCode(2)
        }
        print(Base64URL.encode(subject))
    }
}

/// The data keys of the configuration (`--config` and the environment); a bad one is one sentence, exit 2.
private func configuredDataKeys(
    _ path: String?
) throws -> (data: [UInt8]?, previous: [[UInt8]], subject: [UInt8]?) {
    let configuration = try loadConfiguration(path)
    do {
        return try AccountComponents.dataKeys(of: configuration)
    } catch {
        printError("\(error)")
        throw ExitCode(2)
    }
}
