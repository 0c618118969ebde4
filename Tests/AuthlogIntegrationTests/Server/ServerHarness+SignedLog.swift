import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTransparency
import Foundation

extension ServerHarness {
    /// A server whose log of origin `origin` is signed with a checkpoint key of its own (written to a temporary
    /// PEM file), and the verifier of that key. With `witnesses`, those are configured (quorum: all of them) at an
    /// address nothing answers, submitted to every `witnessIntervalSeconds`: the harness runs no submitter, and a
    /// test stores their cosignatures itself (``storeCosignature(of:by:)``).
    static func startSigningCheckpoints(
        origin: String,
        witnesses: [CosignatureSigner] = [],
        witnessIntervalSeconds: Int? = nil
    ) async throws -> (ServerHarness, NoteVerifier) {
        let key = try PrivateKey.generate(for: .edDSA)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-log-key-\(UUID()).pem").path
        try key.pemRepresentation().write(toFile: file, atomically: true, encoding: .utf8)
        let entries = try JSONValue.array(
            witnesses.map {
                .members([
                    "name": .string($0.name), "url": .string("http://127.0.0.1:9"),
                    "verifier_key": .string($0.verifier.verifierKey),
                ])
            }
        ).decode([ServerConfiguration.WitnessEntry].self)
        let server = try await ServerHarness.start { configuration in
            var log = ServerConfiguration.LogSettings()
            log.origin = origin
            log.checkpointKeyFile = file
            if !entries.isEmpty { log.witnesses = entries }
            if let witnessIntervalSeconds { log.witnessIntervalSeconds = witnessIntervalSeconds }
            configuration.log = log
        }
        return (server, try NoteSigner(name: origin, key: key).verifier)
    }

    /// Stores `witness`'s cosignature of the checkpoint `signed`, as the submitter does when a witness answers, and
    /// returns its line (with its newline).
    @discardableResult
    func storeCosignature(of signed: Checkpointer.Signed, by witness: CosignatureSigner) async throws -> String {
        guard let body = NoteText(signed.note)?.body else { throw StoreError(.decoding, "not a signed note") }
        let line = try witness.cosign(body: body, time: 1_795_600_000)
        try await CheckpointCosignatures.store(
            treeSize: signed.size,
            witness: witness.name,
            line: String(line.dropLast()),
            cosignedAt: 1_795_600_000,
            on: try await self.database.connect()
        )
        return line
    }
}
