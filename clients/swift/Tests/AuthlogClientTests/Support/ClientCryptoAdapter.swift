import AuthlogTransparency
import CryptoKitAPIOnSwiftCrypto
import Testing

@testable import AuthlogClient

/// AuthlogClient's crypto adapters, each with its verification and its random bytes: the one this platform's
/// app runs (libcrypto on Linux, CryptoKit on Apple platforms) and the CryptoKit adapter's own code compiled
/// against swift-crypto (CryptoKitAPIOnSwiftCrypto), which on Linux is the only way to run the device's path.
enum ClientCryptoAdapter: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case platform
    case cryptoKitAPIOnSwiftCrypto

    var testDescription: String {
        switch self {
        #if os(Linux)
        case .platform: "libcrypto (LibcryptoClientCrypto)"
        #else
        case .platform: "CryptoKit (CryptoKitClientCrypto)"
        #endif
        case .cryptoKitAPIOnSwiftCrypto: "CryptoKit's API on swift-crypto (CryptoKitClientCrypto)"
        }
    }

    /// The adapter's hashing and Ed25519 checks.
    var crypto: any TransparencyCrypto {
        switch self {
        case .platform: PlatformCrypto()
        case .cryptoKitAPIOnSwiftCrypto: CryptoKitAPIOnSwiftCrypto.CryptoKitClientCrypto()
        }
    }

    /// The adapter's random bytes.
    func randomBytes(count: Int) -> [UInt8]? {
        switch self {
        case .platform: PlatformCrypto().randomBytes(count: count)
        case .cryptoKitAPIOnSwiftCrypto: CryptoKitAPIOnSwiftCrypto.CryptoKitClientCrypto().randomBytes(count: count)
        }
    }
}

/// The bytes of a hexadecimal string, or nil for one that is not.
func bytes(hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var result: [UInt8] = []
    for index in stride(from: 0, to: digits.count, by: 2) {
        guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
            return nil
        }
        result.append(byte)
    }
    return result
}
