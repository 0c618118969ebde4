import CryptoKitAPIOnSwiftCrypto
import Foundation
import Testing

@testable import AuthlogClient

/// The Apple adapter's key, compiled against swift-crypto, signs DPoP proofs as the device's does.
extension CryptoKitAPIOnSwiftCrypto.CryptoKitP256Key: DPoPSigningKey {}

/// AuthlogClient's DPoP keys, each made and brought back from its private scalar by its own code: the one this
/// platform's app uses (libcrypto on Linux, CryptoKit on Apple platforms) and the CryptoKit adapter's code compiled
/// against swift-crypto, which on Linux is the only way to run the device's path.
enum DPoPKeyAdapter: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case platform
    case cryptoKitAPIOnSwiftCrypto

    var testDescription: String {
        switch self {
        #if os(Linux)
        case .platform: "libcrypto (LibcryptoP256Key)"
        #else
        case .platform: "CryptoKit (CryptoKitP256Key)"
        #endif
        case .cryptoKitAPIOnSwiftCrypto: "CryptoKit's API on swift-crypto (CryptoKitP256Key)"
        }
    }

    /// A new ordinary key and its private scalar, as a store keeps it.
    func makeKey() throws -> (key: any DPoPSigningKey, privateScalar: [UInt8]) {
        switch self {
        case .platform:
            #if os(Linux)
            let scalar = try LibcryptoP256Key.makePrivateScalar()
            #else
            // Both modules have a `CryptoKitP256Key` there: the scalar is drawn by the test target's, and the key
            // brought back (and used) by the platform's.
            let scalar = CryptoKitAPIOnSwiftCrypto.CryptoKitP256Key.makeOrdinary().privateScalar
            #endif
            return (try self.key(privateScalar: scalar), scalar)
        case .cryptoKitAPIOnSwiftCrypto:
            let made = CryptoKitAPIOnSwiftCrypto.CryptoKitP256Key.makeOrdinary()
            return (made.key, made.privateScalar)
        }
    }

    /// The key whose private scalar is `privateScalar`, brought back by this adapter.
    func key(privateScalar: [UInt8]) throws -> any DPoPSigningKey {
        switch self {
        case .platform: try PlatformDPoPKey.restore(StoredDPoPKey(kind: .p256, representation: Data(privateScalar)))
        case .cryptoKitAPIOnSwiftCrypto: try CryptoKitAPIOnSwiftCrypto.CryptoKitP256Key(privateScalar: privateScalar)
        }
    }
}
