import AuthlogTransparency
import Crypto

/// An Ed25519 key on swift-crypto (a test dependency of this package only) that signs notes and cosignatures in
/// these tests (the server signs with OpenSSL; an app never signs).
struct TestSigningKey: Ed25519SigningKey {
    private let key = Curve25519.Signing.PrivateKey()

    var publicKeyBytes: [UInt8] { Array(self.key.publicKey.rawRepresentation) }

    func signature(of message: [UInt8]) throws -> [UInt8] {
        Array(try self.key.signature(for: message))
    }
}

/// A key that cannot sign.
struct BrokenSigningKey: Ed25519SigningKey {
    struct Refusal: Error {}

    var publicKeyBytes: [UInt8] { [UInt8](repeating: 7, count: 32) }

    func signature(of message: [UInt8]) throws -> [UInt8] { throw Refusal() }
}
