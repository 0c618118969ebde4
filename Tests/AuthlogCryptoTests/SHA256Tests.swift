import AuthlogCrypto
import Testing

struct SHA256Tests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// FIPS 180-2 appendix B vectors.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func oneShotMatchesTheStandardVectors(input: String, digest: String) {
        #expect(self.hex(SHA256.hash(Array(input.utf8))) == digest)
    }

    @Test func streamingAMillionAsMatchesTheStandardVector() {
        var digest = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { digest.update(chunk) }
        #expect(self.hex(digest.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func twoPartHashEqualsTheHashOfTheJoinedBytes() {
        let first = Array("prev-hash".utf8)
        let second = Array("canonical event bytes".utf8)
        #expect(SHA256.hash(first, second) == SHA256.hash(first + second))
        #expect(SHA256.hash(first, second) != SHA256.hash(second, first))
    }
}
