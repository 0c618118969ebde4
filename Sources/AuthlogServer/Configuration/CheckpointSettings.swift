import AuthlogAccounts
import AuthlogCrypto
public import AuthlogTransparency
import Foundation

/// The checkpoint settings with their defaults applied, and the signing key loaded: the one place where the
/// `log` section of the configuration is resolved (`serve`, `checkpoint`, `verify` and `prove` share it).
public struct CheckpointSettings: Sendable {
    /// Events sealed since the last checkpoint that make the next one due.
    public static let defaultEveryEvents = ConfigurationDefaults.checkpointEveryEvents
    /// Seconds after which a checkpoint is due while events arrive.
    public static let defaultEverySeconds = ConfigurationDefaults.checkpointEverySeconds

    /// The log's origin and key name.
    public let origin: String
    /// The signer, when a key is configured.
    public let signer: NoteSigner?
    /// The keys that signed before a rotation (`log.previous_checkpoint_verifier_keys`).
    public let previousKeys: [NoteVerifier]
    /// Where notes are written outside the database.
    public let directory: String?
    /// Where the signer keeps the last checkpoint it signed: `latest.note` in the directory, else
    /// `<checkpoint_key_file>.latest.note`; nil when the key comes from the environment and no directory is set.
    public let statePath: String?
    /// Events that make a checkpoint due.
    public let everyEvents: Int
    /// Seconds that make a checkpoint due.
    public let everySeconds: Int
    /// Where the tree is written as tlog-tiles static files (`log.tile_directory`).
    public let tileDirectory: String?

    /// Resolves the `log` section of `configuration`; the key comes from `AUTHLOG_CHECKPOINT_KEY` in
    /// `environment`, else from `log.checkpoint_key_file`.
    /// - Throws: ``ServerConfiguration/Invalid`` for a bad setting or an unreadable or unusable key.
    public init(configuration: ServerConfiguration, environment: [String: String]) throws {
        let log = configuration.log
        self.origin = log?.origin ?? Self.defaultOrigin(publicURL: configuration.publicURL)
        self.directory = log?.checkpointDirectory
        self.statePath =
            log?.checkpointDirectory.map { "\($0)/latest.note" } ?? log?.checkpointKeyFile.map { "\($0).latest.note" }
        self.everyEvents = try ServiceSettings.checked(
            log?.checkpointEveryEvents,
            "log.checkpoint_every_events",
            default: Self.defaultEveryEvents,
            in: 1...10_000_000
        )
        self.everySeconds = try ServiceSettings.checked(
            log?.checkpointEverySeconds,
            "log.checkpoint_every_seconds",
            default: Self.defaultEverySeconds,
            in: 1...86_400
        )
        self.tileDirectory = log?.tileDirectory
        self.previousKeys = try Self.previousKeys(log?.previousCheckpointVerifierKeys ?? [], origin: self.origin)
        let pem: String?
        if let text = environment["AUTHLOG_CHECKPOINT_KEY"], !text.isEmpty {
            pem = text
        } else if let file = log?.checkpointKeyFile {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ServerConfiguration.Invalid(description: "log.checkpoint_key_file: cannot read \(file)")
            }
            pem = String(decoding: data, as: UTF8.self)
        } else {
            pem = nil
        }
        do {
            let origin = self.origin
            self.signer = try pem.map { try NoteSigner(name: origin, key: try PrivateKey(pem: $0)) }
        } catch {
            throw ServerConfiguration.Invalid(description: "the checkpoint key or log.origin is unusable: \(error)")
        }
    }

    /// Every key a note of this log may be signed by: the signing key's verifier (when configured) first, then
    /// the previous keys.
    public var keyring: NoteKeyring {
        NoteKeyring((self.signer.map { [$0.verifier] } ?? []) + self.previousKeys)
    }

    /// The verifiers of `log.previous_checkpoint_verifier_keys`, each named by the log's origin.
    private static func previousKeys(_ texts: [String], origin: String) throws -> [NoteVerifier] {
        guard texts.count <= 64 else {
            throw ServerConfiguration.Invalid(description: "log.previous_checkpoint_verifier_keys: at most 64 keys")
        }
        return try texts.enumerated().map { index, text in
            let member = "log.previous_checkpoint_verifier_keys[\(index)]"
            let verifier: NoteVerifier
            do {
                verifier = try NoteVerifier(verifierKey: text)
            } catch {
                throw ServerConfiguration.Invalid(
                    description:
                        "\(member): not a verifier key (<origin>+<key hash>+<base64 key>, as in checkpoint.vkey)"
                )
            }
            guard verifier.name == origin else {
                throw ServerConfiguration.Invalid(
                    description: "\(member) names the key \(verifier.name), but the log's origin is \(origin)"
                )
            }
            return verifier
        }
    }

    /// `<host[:port]>/log` of `publicURL`, or `authlog.localhost/log`.
    public static func defaultOrigin(publicURL: String?) -> String {
        guard let publicURL, let url = URL(string: publicURL), let host = url.host, !host.isEmpty else {
            return "authlog.localhost/log"
        }
        return host + (url.port.map { ":\($0)" } ?? "") + "/log"
    }
}
