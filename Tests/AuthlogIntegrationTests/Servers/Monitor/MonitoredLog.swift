import AuthlogCore
import AuthlogCrypto
import AuthlogTesting
import AuthlogTransparency
import Foundation

/// The keys of a log that a device monitors, written to a scratch folder, and the configuration members that
/// `authlog serve` needs for it. Everything else stays at its default.
///
/// What each member is for, and why a test sets it:
/// - `log.checkpoint_key_file`: without a checkpoint key, `serve` signs no checkpoints, so there is no receipt to
///   check (the default has none because the key is the operator's to make);
/// - `log.checkpoint_directory`: the signer's state outside the database, as docs/operations.md recommends; one
///   per server, so that the two servers of the fork test do not share `<key file>.latest.note`;
/// - `log.checkpoint_every_seconds` = 1: the default 60 would make every test wait a minute for each
///   checkpoint that covers a new event (1 is the least allowed; the every-1000-events trigger stays);
/// - `access_token.signing_key_file` and `data_key`: the default makes an access-token key for the run; two
///   servers of one log must accept the same token and read the same encrypted rows.
struct MonitoredLog {
    /// The checkpoints' origin: the default one of a server without `public_url`.
    static let origin = "authlog.localhost/log"

    /// The scratch folder holding the keys and each server's checkpoint directory.
    let folder: String
    /// The note verifier key an app pins (`<origin>+<hash>+<base64 key>`).
    let verifierKey: String
    /// The verifier for tests that check notes themselves.
    let verifier: NoteVerifier
    private let checkpointKeyFile: String
    private let accessTokenKeyFile: String
    private let dataKey: String

    /// Makes the keys in a new scratch folder.
    static func make() throws -> MonitoredLog {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-monitored-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let checkpointKey = try PrivateKey.generate(for: .edDSA)
        let checkpointKeyFile = "\(folder)/checkpoint-ed25519.pem"
        try checkpointKey.pemRepresentation().write(toFile: checkpointKeyFile, atomically: true, encoding: .utf8)
        let accessTokenKeyFile = "\(folder)/access-token-es256.pem"
        try PrivateKey.generate(for: .es256).pemRepresentation()
            .write(toFile: accessTokenKeyFile, atomically: true, encoding: .utf8)
        let verifier = try NoteSigner(name: Self.origin, key: checkpointKey).verifier
        return MonitoredLog(
            folder: folder,
            verifierKey: verifier.verifierKey,
            verifier: verifier,
            checkpointKeyFile: checkpointKeyFile,
            accessTokenKeyFile: accessTokenKeyFile,
            dataKey: Base64URL.encode(try SecureRandom.bytes(count: 32))
        )
    }

    /// The checkpoint directory of the server called `server`.
    func checkpointDirectory(_ server: String) -> String { "\(self.folder)/checkpoints-\(server)" }

    /// The configuration members of the server called `server`, with `log` members added (witnesses, say).
    func configuration(server: String, log more: [String: JSONValue] = [:]) -> [String: JSONValue] {
        var log: [String: JSONValue] = [
            "checkpoint_key_file": .string(self.checkpointKeyFile),
            "checkpoint_directory": .string(self.checkpointDirectory(server)),
            "checkpoint_every_seconds": .number("1"),
        ]
        log.merge(more) { _, given in given }
        return [
            "log": .object(log.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }),
            "access_token": .members(["signing_key_file": .string(self.accessTokenKeyFile)]),
            "data_key": .string(self.dataKey),
        ]
    }

    /// Removes the scratch folder.
    func remove() { try? FileManager.default.removeItem(atPath: self.folder) }
}
