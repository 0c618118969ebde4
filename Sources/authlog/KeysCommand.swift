import ArgumentParser
import AuthlogCrypto
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTransparency
import Foundation

/// `authlog keys …`.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make signing keys; create, list and revoke API keys; rewrap after a data_key rotation.",
        subcommands: [
            GenerateKeysCommand.self, CreateAPIKeyCommand.self, ListAPIKeysCommand.self, RevokeAPIKeyCommand.self,
            RewrapDataKeyCommand.self, SubjectKeyCommand.self,
        ]
    )
}

/// `authlog keys generate`: the access-token key and the checkpoint key, as files outside the database.
struct GenerateKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Make an ES256 access-token key and an Ed25519 checkpoint key in a directory.",
        discussion: """
            Writes access-token-es256.pem and checkpoint-ed25519.pem (mode 0600) and checkpoint.vkey, the \
            checkpoint verifier key (<origin>+<key hash>+<base64 key>) that auditors and witnesses check notes \
            with. Keep the private keys outside the database and away from its administrators. Existing files \
            are never overwritten.
            """
    )

    @Option(help: ArgumentHelp("The directory to write the keys into.", valueName: "dir"))
    var out = "."

    @Option(
        help: "The log's origin, which names the checkpoint key (default: from --config, else authlog.localhost/log)."
    )
    var origin: String?

    @Option(name: .long, help: ArgumentHelp("The configuration file (log.origin, public_url).", valueName: "file"))
    var config: String?

    func run() async throws {
        let configuration = try loadConfiguration(self.config)
        let origin =
            self.origin ?? configuration.log?.origin
            ?? CheckpointSettings.defaultOrigin(publicURL: configuration.publicURL)
        let files = ["access-token-es256.pem", "checkpoint-ed25519.pem", "checkpoint.vkey"].map { "\(self.out)/\($0)" }
        for file in files where FileManager.default.fileExists(atPath: file) {
            printError("\(file) exists; not overwriting it")
            throw ExitCode(1)
        }
        let verifierKey: String
        do {
            try FileManager.default.createDirectory(atPath: self.out, withIntermediateDirectories: true)
            let accessKey = try PrivateKey.generate(for: .es256)
            let checkpointKey = try PrivateKey.generate(for: .edDSA)
            verifierKey = try NoteSigner(name: origin, key: checkpointKey).verifier.verifierKey
            try Self.write(try accessKey.pemRepresentation(), to: files[0], mode: 0o600)
            try Self.write(try checkpointKey.pemRepresentation(), to: files[1], mode: 0o600)
            try Self.write(verifierKey + "\n", to: files[2], mode: 0o644)
        } catch {
            printError("cannot make the keys: \(error)")
            throw ExitCode(1)
        }
        print(
            """
            wrote \(files[0]), \(files[1]) and \(files[2])
            checkpoint verifier key: \(verifierKey)
            configure: "access_token": {"signing_key_file": "\(files[0])"}, \
            "log": {"origin": "\(origin)", "checkpoint_key_file": "\(files[1])"}
            """
        )
    }

    private static func write(_ text: String, to path: String, mode: Int) throws {
        guard
            FileManager.default.createFile(
                atPath: path,
                contents: Data(text.utf8),
                attributes: [.posixPermissions: mode]
            )
        else { throw CocoaError(.fileWriteUnknown) }
    }
}

/// `authlog keys create-api-key --name NAME --scope ingest|audit|admin`: prints the key once.
struct CreateAPIKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-api-key",
        abstract: "Create a scoped API key for the operator and auditor routes and print it once.",
        discussion: """
            Only the key's SHA-256 is stored: keep the printed key now, it cannot be shown again. Callers send it \
            as Authorization: Bearer. Events caused through it name key:NAME as their actor.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The key's name: 1 to 64 of A-Z a-z 0-9 . _ -; never reused, even after revocation.")
    var name: String

    @Option(help: "What the key may do: ingest, audit or admin.")
    var scope: String

    func run() async throws {
        guard let scope = APIKeyScope(rawValue: self.scope) else {
            printError("--scope must be ingest, audit or admin")
            throw ExitCode(2)
        }
        guard APIKeyStore.isValidName(self.name) else {
            printError("--name must be 1 to 64 of A-Z a-z 0-9 . _ -")
            throw ExitCode(2)
        }
        let conninfo = try await self.database.conninfo()
        let keys = APIKeyStore(pool: ConnectionPool(conninfo: conninfo, maximumConnections: 1))
        let key = try await reportingStoreErrors { try await keys.create(name: self.name, scope: scope) }
        print(key)
        printError("API key \(self.name) (scope \(scope.rawValue)) created; it is shown only this once.")
    }
}

/// `authlog keys list`: every API key's name, scope and dates; never the keys.
struct ListAPIKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the API keys: name, scope, created, revoked."
    )

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let conninfo = try await self.database.conninfo()
        let keys = APIKeyStore(pool: ConnectionPool(conninfo: conninfo, maximumConnections: 1))
        let records = try await reportingStoreErrors { try await keys.list() }
        let rows = records.map {
            [$0.name, $0.scope.rawValue, $0.createdAt.description, $0.revokedAt?.description ?? "-"]
        }
        print(TextTable.render(header: ["name", "scope", "created", "revoked"], rows: rows), terminator: "")
    }
}

/// `authlog keys revoke NAME`.
struct RevokeAPIKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke an API key: its next request is answered 401."
    )

    @OptionGroup var database: DatabaseOptions

    @Argument(help: "The key's name.")
    var name: String

    func run() async throws {
        let conninfo = try await self.database.conninfo()
        let keys = APIKeyStore(pool: ConnectionPool(conninfo: conninfo, maximumConnections: 1))
        guard try await reportingStoreErrors({ try await keys.revoke(name: self.name) }) else {
            printError("no unrevoked API key is named \(self.name)")
            throw ExitCode(1)
        }
        print("API key \(self.name) revoked")
    }
}
