import AuthlogClient
import AuthlogTransparency
import Testing

/// The verification core's crypto on swift-crypto gives the standard answers: SHA-256 (FIPS 180-4) and Ed25519
/// (RFC 8032 §7.1). AuthlogCryptoTests checks OpenSSL's implementation against the same vectors.
struct SwiftCryptoTransparencyCryptoTests {
    let crypto: any TransparencyCrypto = .swiftCrypto

    @Test func sha256MatchesTheStandardVectors() {
        #expect(
            Hex.encode(self.crypto.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
        #expect(
            Hex.encode(self.crypto.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
        #expect(self.crypto.sha256([]) == MerkleTree.emptyRoot)
    }

    @Test func ed25519MatchesRFC8032AndRefusesEverythingElse() throws {
        let publicKey = try #require(Self.bytes("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
        let signature = try #require(
            Self.bytes(
                "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
            )
        )
        #expect(self.crypto.isValidEd25519Signature(signature, of: [], publicKey: publicKey))
        #expect(!self.crypto.isValidEd25519Signature(signature, of: [0], publicKey: publicKey))
        var flipped = signature
        flipped[63] ^= 1
        #expect(!self.crypto.isValidEd25519Signature(flipped, of: [], publicKey: publicKey))
        #expect(!self.crypto.isValidEd25519Signature(Array(signature.dropLast()), of: [], publicKey: publicKey))
        #expect(!self.crypto.isValidEd25519Signature(signature, of: [], publicKey: Array(publicKey.dropLast())))
    }

    static func bytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        return stride(from: 0, to: digits.count, by: 2).compactMap {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)
        }
    }
}
