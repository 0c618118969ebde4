import AuthlogCore
import AuthlogCrypto
import AuthlogTransparency
import Testing

/// The verification core's crypto on OpenSSL gives the standard answers, the vectors the client package holds its
/// own adapters to (ClientCryptoAdapterTests): SHA-256 (FIPS 180-4) and Ed25519 (RFC 8032 §7.1); and the server's
/// spellings of the core's calls are the core's calls with OpenSSL.
struct OpenSSLTransparencyCryptoTests {
    let crypto: any TransparencyCrypto = .openSSL

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
        let publicKey = try #require(Hex.decode("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
        let signature = try #require(
            Hex.decode(
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

    @Test func theServersSpellingsAreTheCoresCallsWithOpenSSL() throws {
        let digest = SHA256.hash([7])
        #expect(
            MerkleTree.leafHash(position: 9, digest: digest)
                == MerkleTree.leafHash(position: 9, digest: digest, crypto: self.crypto)
        )
        var frontier = MerkleFrontier()
        for leaf in 0..<5 { frontier.append(leaf: SHA256.hash([UInt8(leaf)])) }
        #expect(frontier.root == frontier.root(crypto: self.crypto))
        let key = try PrivateKey.generate(for: .edDSA)
        let signer = try NoteSigner(name: "o.test/log", key: key)
        let body = Checkpoint(origin: "o.test/log", size: 5, root: frontier.root).body
        #expect(try NoteVerifier(verifierKey: signer.verifier.verifierKey).open(try signer.sign(body)) == body)
        #expect(throws: CryptoError(.invalidKey, "notes are signed with Ed25519 keys")) {
            try NoteSigner(name: "o.test/log", key: try PrivateKey.generate(for: .es256))
        }
    }
}
