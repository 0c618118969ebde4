import AuthlogCore
import AuthlogCrypto
import Testing

/// HKDF-SHA-256 through OpenSSL against RFC 5869's own test cases, and its length bounds.
struct HKDFTests {
    @Test func rfc5869TestCase1() throws {
        let okm = try HKDFSHA256.deriveKey(
            from: [UInt8](repeating: 0x0b, count: 22),
            salt: Array(0x00...0x0c),
            info: Array(0xf0...0xf9),
            length: 42
        )
        #expect(
            Hex.encode(okm) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
        )
    }

    @Test func rfc5869TestCase3WithNoSaltAndNoInfo() throws {
        let okm = try HKDFSHA256.deriveKey(from: [UInt8](repeating: 0x0b, count: 22), salt: [], info: [], length: 42)
        #expect(
            Hex.encode(okm) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
        )
    }

    @Test func lengthsOutsideOneTo8160AreRefused() throws {
        #expect(throws: CryptoError.self) { try HKDFSHA256.deriveKey(from: [1], salt: [], info: [], length: 0) }
        #expect(throws: CryptoError.self) { try HKDFSHA256.deriveKey(from: [1], salt: [], info: [], length: 8_161) }
        #expect(try HKDFSHA256.deriveKey(from: [1], salt: [], info: [], length: 8_160).count == 8_160)
    }
}
