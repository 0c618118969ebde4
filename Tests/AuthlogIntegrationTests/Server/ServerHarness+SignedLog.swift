import AuthlogCrypto
import AuthlogServer
import AuthlogStore
import AuthlogTransparency
import Foundation

extension ServerHarness {
    /// A server whose log of origin `origin` is signed with a checkpoint key of its own (written to a temporary
    /// PEM file), and the verifier of that key.
    static func startSigningCheckpoints(origin: String) async throws -> (ServerHarness, NoteVerifier) {
        let key = try PrivateKey.generate(for: .edDSA)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-log-key-\(UUID()).pem").path
        try key.pemRepresentation().write(toFile: file, atomically: true, encoding: .utf8)
        let server = try await ServerHarness.start { configuration in
            var log = ServerConfiguration.LogSettings()
            log.origin = origin
            log.checkpointKeyFile = file
            configuration.log = log
        }
        return (server, try NoteSigner(name: origin, key: key).verifier)
    }
}
