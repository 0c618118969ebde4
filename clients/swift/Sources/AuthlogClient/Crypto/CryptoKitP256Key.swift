// The Apple platforms' DPoP key. Like CryptoKitClientCrypto.swift, the test-only target CryptoKitAPIOnSwiftCrypto
// compiles this same file (a symbolic link) against swift-crypto with CRYPTOKIT_API_ON_SWIFT_CRYPTO defined, so
// that the device's signing code makes proofs in the Linux tests too (DPoPProofTests). It uses nothing of
// AuthlogClient: the target conforms it to DPoPSigningKey where it is used.
#if canImport(CryptoKit)
import CryptoKit
import Foundation
import Security
#elseif CRYPTOKIT_API_ON_SWIFT_CRYPTO
import Crypto
#endif

#if canImport(CryptoKit) || CRYPTOKIT_API_ON_SWIFT_CRYPTO
/// A P-256 signing key in CryptoKit: in the Secure Enclave (where the device has one; never on swift-crypto), or an
/// ordinary `P256.Signing.PrivateKey`. A token store keeps the Secure Enclave key's `dataRepresentation` (an
/// encrypted handle that only this device's Secure Enclave can use) or the ordinary key's 32-byte private scalar
/// (`rawRepresentation`, the bytes Linux's key is kept as too).
///
/// `@unchecked Sendable`: `key` is a `let` of CryptoKit key values, which have no mutating members and sign from any
/// thread; not every SDK marks them `Sendable`.
package final class CryptoKitP256Key: @unchecked Sendable {
    private enum Key {
        case ordinary(P256.Signing.PrivateKey)
        #if canImport(CryptoKit)
        case secureEnclave(SecureEnclave.P256.Signing.PrivateKey)
        #endif
    }

    private let key: Key
    /// The public key's point as `x‖y`, 32 bytes each.
    package let publicKeyRawRepresentation: [UInt8]

    private init(_ key: Key) {
        self.key = key
        switch key {
        case .ordinary(let ordinary): self.publicKeyRawRepresentation = Array(ordinary.publicKey.rawRepresentation)
        #if canImport(CryptoKit)
        case .secureEnclave(let enclave): self.publicKeyRawRepresentation = Array(enclave.publicKey.rawRepresentation)
        #endif
        }
    }

    /// A new ordinary key and its private scalar (32 bytes), which is what a store keeps.
    package static func makeOrdinary() -> (key: CryptoKitP256Key, privateScalar: [UInt8]) {
        let key = P256.Signing.PrivateKey()
        return (CryptoKitP256Key(.ordinary(key)), Array(key.rawRepresentation))
    }

    /// The ordinary key whose private scalar is `privateScalar` (32 bytes big-endian).
    /// - Throws: CryptoKit's error for bytes that are no P-256 private key.
    package convenience init(privateScalar: [UInt8]) throws {
        self.init(.ordinary(try P256.Signing.PrivateKey(rawRepresentation: privateScalar)))
    }

    #if canImport(CryptoKit)
    /// Whether this device has a Secure Enclave.
    package static var isSecureEnclaveAvailable: Bool { SecureEnclave.isAvailable }

    /// A new key in the Secure Enclave and its `dataRepresentation`, which is what a store keeps. The key can sign
    /// after the device's first unlock, as the tokens can be read, so that a refresh in the background works while
    /// the device is locked; it never leaves the device.
    /// - Throws: when the Secure Enclave cannot make a key (none, or the system refuses).
    package static func makeInSecureEnclave() throws -> (key: CryptoKitP256Key, dataRepresentation: [UInt8]) {
        guard
            let access = SecAccessControlCreateWithFlags(
                nil,
                kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
                .privateKeyUsage,
                nil
            )
        else { throw CryptoKitError.invalidParameter }
        let key = try SecureEnclave.P256.Signing.PrivateKey(accessControl: access)
        return (CryptoKitP256Key(.secureEnclave(key)), Array(key.dataRepresentation))
    }

    /// The Secure Enclave key whose `dataRepresentation` is `dataRepresentation`.
    /// - Throws: CryptoKit's error when this device's Secure Enclave cannot use it (another device's, say).
    package convenience init(secureEnclaveData dataRepresentation: [UInt8]) throws {
        self.init(
            .secureEnclave(try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: Data(dataRepresentation)))
        )
    }
    #endif

    /// The ES256 signature of `message` (ECDSA P-256 over its SHA-256): `r‖s`, 32 bytes each.
    /// - Throws: CryptoKit's error when the key cannot sign.
    package func signature(of message: [UInt8]) throws -> [UInt8] {
        switch self.key {
        case .ordinary(let key): return Array(try key.signature(for: message).rawRepresentation)
        #if canImport(CryptoKit)
        case .secureEnclave(let key): return Array(try key.signature(for: message).rawRepresentation)
        #endif
        }
    }
}
#endif
