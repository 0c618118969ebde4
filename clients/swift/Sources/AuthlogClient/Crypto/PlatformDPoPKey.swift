import Foundation

/// The install's DPoP key on the platform's own library: made in the Secure Enclave where the device has one (else
/// an ordinary CryptoKit key) on Apple platforms, with the system's libcrypto on Linux; and brought back from what
/// the token store kept (``StoredDPoPKey``).
enum PlatformDPoPKey {
    /// A new key, as the token store keeps it.
    /// - Throws: ``AuthlogClientError`` `.dpopKeyUnavailable` when no key can be made.
    static func make() throws(AuthlogClientError) -> StoredDPoPKey {
        #if canImport(CryptoKit)
        // A device whose Secure Enclave refuses (a simulator, a Mac without one) gets an ordinary key.
        if CryptoKitP256Key.isSecureEnclaveAvailable, let made = try? CryptoKitP256Key.makeInSecureEnclave() {
            return StoredDPoPKey(kind: .secureEnclaveP256, representation: Data(made.dataRepresentation))
        }
        return StoredDPoPKey(kind: .p256, representation: Data(CryptoKitP256Key.makeOrdinary().privateScalar))
        #else
        return StoredDPoPKey(kind: .p256, representation: Data(try LibcryptoP256Key.makePrivateScalar()))
        #endif
    }

    /// The key `stored` holds.
    /// - Throws: ``AuthlogClientError`` `.dpopKeyUnavailable` when it is no key this device can use (another
    ///   device's Secure Enclave key, bytes that are no key, a kind this platform has not).
    static func restore(_ stored: StoredDPoPKey) throws(AuthlogClientError) -> any DPoPSigningKey {
        let bytes = Array(stored.representation)
        #if canImport(CryptoKit)
        do {
            switch stored.kind {
            case .p256: return try CryptoKitP256Key(privateScalar: bytes)
            case .secureEnclaveP256: return try CryptoKitP256Key(secureEnclaveData: bytes)
            default: break
            }
        } catch {
            throw AuthlogClientError(.dpopKeyUnavailable, detail: "The stored DPoP key cannot be used on this device.")
        }
        #else
        if stored.kind == .p256 { return try LibcryptoP256Key(privateScalar: bytes) }
        #endif
        throw AuthlogClientError(.dpopKeyUnavailable, detail: "The stored DPoP key is of a kind this platform has not.")
    }
}

#if canImport(CryptoKit)
extension CryptoKitP256Key: DPoPSigningKey {}
#endif
