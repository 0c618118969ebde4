import AuthlogClient
import AuthlogTransparency
import Testing

/// Every crypto adapter of AuthlogClient gives the standard answers: SHA-256 (FIPS 180-4), Ed25519 (RFC 8032
/// §7.1 and Wycheproof's 151 cases) and random bytes. The Linux adapter (libcrypto) and the Apple one (CryptoKit's
/// code, here on swift-crypto) are held to the same vectors, so the device's path and the tests' path agree.
/// AuthlogCryptoTests holds the server's OpenSSL implementation to the same vectors.
struct ClientCryptoAdapterTests {
    @Test(arguments: ClientCryptoAdapter.allCases)
    func sha256MatchesTheStandardVectors(adapter: ClientCryptoAdapter) {
        let crypto = adapter.crypto
        #expect(Hex.encode(crypto.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            Hex.encode(crypto.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
        // Two blocks (FIPS 180-4's 448-bit message).
        #expect(
            Hex.encode(crypto.sha256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        )
        #expect(crypto.sha256([]) == MerkleTree.emptyRoot)
    }

    /// RFC 8032 §7.1, TEST 2: the public key and its signature of the one byte 0x72.
    static let rfc8032PublicKey = bytes(hex: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
    static let rfc8032Signature = bytes(
        hex: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
            + "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
    )

    @Test(arguments: ClientCryptoAdapter.allCases)
    func ed25519MatchesRFC8032AndRefusesEverythingElse(adapter: ClientCryptoAdapter) throws {
        let crypto = adapter.crypto
        let publicKey = try #require(Self.rfc8032PublicKey)
        let signature = try #require(Self.rfc8032Signature)
        #expect(crypto.isValidEd25519Signature(signature, of: [0x72], publicKey: publicKey))
        #expect(!crypto.isValidEd25519Signature(signature, of: [0x73], publicKey: publicKey))
        #expect(!crypto.isValidEd25519Signature(signature, of: [], publicKey: publicKey))
        var flipped = signature
        flipped[63] ^= 1
        #expect(!crypto.isValidEd25519Signature(flipped, of: [0x72], publicKey: publicKey))
        #expect(!crypto.isValidEd25519Signature(Array(signature.dropLast()), of: [0x72], publicKey: publicKey))
        #expect(!crypto.isValidEd25519Signature(signature + [0], of: [0x72], publicKey: publicKey))
        #expect(!crypto.isValidEd25519Signature(signature, of: [0x72], publicKey: Array(publicKey.dropLast())))
        #expect(!crypto.isValidEd25519Signature(signature, of: [0x72], publicKey: []))
    }

    @Test(arguments: ClientCryptoAdapter.allCases)
    func ed25519GivesWycheproofsVerdicts(adapter: ClientCryptoAdapter) throws {
        guard let file = try WycheproofEd25519.load() else { return }
        let crypto = adapter.crypto
        var count = 0
        for group in file.testGroups {
            let publicKey = try #require(bytes(hex: group.publicKey.pk))
            for test in group.tests {
                count += 1
                let message = try #require(bytes(hex: test.msg), "tc \(test.tcId)")
                let signature = try #require(bytes(hex: test.sig), "tc \(test.tcId)")
                let accepted = crypto.isValidEd25519Signature(signature, of: message, publicKey: publicKey)
                #expect(accepted == (test.result == "valid"), "tc \(test.tcId) \(test.comment) \(test.flags)")
            }
        }
        #expect(count == 151)
        #expect(file.numberOfTests == count)
    }

    @Test(arguments: ClientCryptoAdapter.allCases)
    func randomBytesHaveTheCountAskedForAndDiffer(adapter: ClientCryptoAdapter) throws {
        let first = try #require(adapter.randomBytes(count: 32))
        let second = try #require(adapter.randomBytes(count: 32))
        #expect(first.count == 32)
        #expect(first != second)
        #expect(adapter.randomBytes(count: 0) == [])
        #expect(adapter.randomBytes(count: -1) == nil)
    }

    /// What an app passes to the core (`.platform`) is the platform's adapter.
    @Test func thePublicCryptoIsThePlatformsAdapter() throws {
        let crypto: any TransparencyCrypto = .platform
        let publicKey = try #require(Self.rfc8032PublicKey)
        let signature = try #require(Self.rfc8032Signature)
        #expect(crypto.isValidEd25519Signature(signature, of: [0x72], publicKey: publicKey))
        #expect(!crypto.isValidEd25519Signature(signature, of: [0x73], publicKey: publicKey))
        #expect(
            Hex.encode(crypto.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
    }
}
