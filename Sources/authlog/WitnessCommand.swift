import ArgumentParser
import AuthlogCrypto
import AuthlogServer
import AuthlogStore
import AuthlogTransparency
import AuthlogWitness
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// `authlog witness`: a C2SP tlog-witness an auditor runs on their own machine.
struct WitnessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "witness",
        abstract: "Run a C2SP tlog-witness that cosigns the checkpoints of the logs it is given.",
        discussion: """
            POST /add-checkpoint takes `old <size>`, a consistency proof and a signed checkpoint (C2SP \
            tlog-witness) and answers with a cosignature/v1 line once the log's signature and the proof from the \
            checkpoint it last cosigned verify. It keeps that checkpoint per log in --state-dir (fsynced before it \
            answers), never in authlog's database; GET /<hex SHA-256 of the origin>/checkpoint serves it. Each \
            --log is a log's note verifier key; its checkpoints' origin is the key's name unless written \
            `--log "ORIGIN VKEY"`. `authlog witness keys generate` makes the witness's key.
            """,
        subcommands: [WitnessRunCommand.self, WitnessKeysCommand.self],
        defaultSubcommand: WitnessRunCommand.self
    )
}

/// `authlog witness [run]`.
struct WitnessRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the witness (the default)."
    )

    @Option(name: .long, help: ArgumentHelp("The address to listen on.", valueName: "host:port"))
    var listen = "127.0.0.1:7380"

    @Option(name: .long, help: ArgumentHelp("The witness's Ed25519 key (PKCS#8 PEM).", valueName: "file"))
    var key: String

    @Option(name: .long, help: "The witness's name (its cosignatures' key name), e.g. witness.example.org/w1.")
    var name: String

    @Option(
        name: .long,
        help: ArgumentHelp("Where the latest cosigned checkpoint of each log is kept.", valueName: "dir")
    )
    var stateDir: String

    @Option(
        name: .long,
        help: ArgumentHelp("A witnessed log's verifier key, or \"ORIGIN VKEY\" (repeatable).", valueName: "vkey")
    )
    var log: [String] = []

    func run() async throws {
        let logger = {
            // Standard error, unbuffered: an auditor's tail shows each refusal as it happens.
            var logger = Logger(label: "authlog-witness", factory: { StreamLogHandler.standardError(label: $0) })
            logger.logLevel =
                ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
            return logger
        }()
        guard let colon = self.listen.lastIndex(of: ":"),
            let port = Int(self.listen[self.listen.index(after: colon)...]),
            (0...65_535).contains(port)
        else { throw ValidationError("--listen must be host:port") }
        let host = String(self.listen[..<colon])
        guard !self.log.isEmpty else { throw ValidationError("give at least one --log verifier key") }
        let witness: Witness
        do {
            let pem = try String(contentsOfFile: self.key, encoding: .utf8)
            let signer = try CosignatureSigner(name: self.name, key: try PrivateKey(pem: pem))
            let logs = try self.log.map(Self.parseLog)
            witness = try Witness(signer: signer, logs: logs, stateDirectory: self.stateDir)
        } catch {
            printError("cannot start the witness: \(error)")
            throw ExitCode(2)
        }
        let app = try buildWitnessApplication(
            witness: witness,
            host: host,
            port: port,
            logger: logger,
            onServerRunning: { port in
                logger.info(
                    "authlog witness is serving",
                    metadata: [
                        "address": .string("http://\(host):\(port)"),
                        "verifier_key": .string(witness.signer.verifier.verifierKey),
                    ]
                )
            }
        )
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [ServiceGroupConfiguration.ServiceConfiguration(service: app)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }

    /// `VKEY` (origin = the key's name) or `ORIGIN VKEY`.
    static func parseLog(_ text: String) throws -> Witness.Log {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let space = trimmed.lastIndex(of: " ") {
            let origin = trimmed[..<space].trimmingCharacters(in: .whitespaces)
            let verifier = try NoteVerifier(verifierKey: String(trimmed[trimmed.index(after: space)...]))
            return Witness.Log(origin: origin, verifiers: [verifier])
        }
        let verifier = try NoteVerifier(verifierKey: trimmed)
        return Witness.Log(origin: verifier.name, verifiers: [verifier])
    }
}

/// `authlog witness keys`.
struct WitnessKeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make the witness's key.",
        subcommands: [WitnessGenerateKeyCommand.self]
    )
}

/// `authlog witness keys generate --out DIR --name NAME`.
struct WitnessGenerateKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Make an Ed25519 witness key and its cosignature verifier key.",
        discussion: """
            Writes witness-ed25519.pem (mode 0600) and witness.vkey, the verifier key of its cosignatures \
            (<name>+<key ID>+<base64(0x04 ‖ key)>, C2SP tlog-cosignature) that the log's log.witnesses and \
            readers' witness policies name. Existing files are never overwritten.
            """
    )

    @Option(help: ArgumentHelp("The directory to write the key into.", valueName: "dir"))
    var out = "."

    @Option(help: "The witness's name, e.g. witness.example.org/w1.")
    var name: String

    func run() async throws {
        let files = ["witness-ed25519.pem", "witness.vkey"].map { "\(self.out)/\($0)" }
        for file in files where FileManager.default.fileExists(atPath: file) {
            printError("\(file) exists; not overwriting it")
            throw ExitCode(1)
        }
        let verifierKey: String
        do {
            try FileManager.default.createDirectory(atPath: self.out, withIntermediateDirectories: true)
            let key = try PrivateKey.generate(for: .edDSA)
            verifierKey = try CosignatureSigner(name: self.name, key: key).verifier.verifierKey
            guard
                FileManager.default.createFile(
                    atPath: files[0],
                    contents: Data(try key.pemRepresentation().utf8),
                    attributes: [.posixPermissions: 0o600]
                ),
                FileManager.default.createFile(
                    atPath: files[1],
                    contents: Data((verifierKey + "\n").utf8),
                    attributes: [.posixPermissions: 0o644]
                )
            else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            printError("cannot make the witness key: \(error)")
            throw ExitCode(1)
        }
        print("wrote \(files[0]) and \(files[1])\nwitness verifier key: \(verifierKey)")
    }
}
