import AuthlogClient
import AuthlogTransparency
import Crypto

/// An Ed25519 key on swift-crypto (a test dependency only) that signs the test log's checkpoints and its
/// witnesses' cosignatures (an app never signs).
struct TestEd25519Key: Ed25519SigningKey {
    private let key = Curve25519.Signing.PrivateKey()

    var publicKeyBytes: [UInt8] { Array(self.key.publicKey.rawRepresentation) }

    func signature(of message: [UInt8]) throws -> [UInt8] {
        Array(try self.key.signature(for: message))
    }
}

/// The test log's signer and three witnesses: two the app pins, one it does not know.
struct TestLogKeys: Sendable {
    static let origin = "authlog.test/log"

    let log: NoteSigner
    /// A key of the same name that is not the log's.
    let impostor: NoteSigner
    let witnesses: [CosignatureSigner]
    let unknownWitness: CosignatureSigner

    init() throws {
        let crypto = PlatformTransparencyCrypto()
        self.log = try NoteSigner(name: Self.origin, key: TestEd25519Key(), crypto: crypto)
        self.impostor = try NoteSigner(name: Self.origin, key: TestEd25519Key(), crypto: crypto)
        self.witnesses = try ["witness-a.test", "witness-b.test"].map {
            try CosignatureSigner(name: $0, key: TestEd25519Key(), crypto: crypto)
        }
        self.unknownWitness = try CosignatureSigner(name: "stranger.test", key: TestEd25519Key(), crypto: crypto)
    }

    /// The C2SP tlog-policy an app ships: the log, both witnesses, a quorum of one.
    var policyText: String {
        """
        log \(self.log.verifier.verifierKey)
        witness a \(self.witnesses[0].verifier.verifierKey)
        witness b \(self.witnesses[1].verifier.verifierKey)
        group any-one 1 a b
        quorum any-one

        """
    }

    /// The pins of that policy.
    func pins() throws -> LogPins {
        try LogPins(origin: Self.origin, verifierKey: self.log.verifier.verifierKey, policy: self.policyText)
    }

    /// The checkpoint note of `size` leaves and `root`, signed by `signer` (the log by default) and cosigned by
    /// `cosigners`.
    func note(size: Int64, root: [UInt8], signer: NoteSigner? = nil, cosigners: [CosignatureSigner]) throws -> String {
        let body = Checkpoint(origin: Self.origin, size: size, root: root).body
        var note = try (signer ?? self.log).sign(body)
        for witness in cosigners { note += try witness.cosign(body: body, time: 1_795_600_000) }
        return note
    }
}
