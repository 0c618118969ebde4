/// A P-256 private key that signs DPoP proofs with ES256: ``LibcryptoP256Key`` on Linux, ``CryptoKitP256Key`` (in
/// the Secure Enclave where the device has one) on Apple platforms. ``DPoPProofMaker`` builds the proofs around it.
package protocol DPoPSigningKey: Sendable {
    /// The public key's point as `x‖y`, 32 bytes each (CryptoKit's `P256.Signing.PublicKey.rawRepresentation`).
    var publicKeyRawRepresentation: [UInt8] { get }

    /// The ES256 signature of `message` (ECDSA P-256 over its SHA-256) in JOSE's form: `r‖s`, 32 bytes each.
    /// - Throws: when the key cannot sign (the Secure Enclave refuses, OpenSSL fails).
    func signature(of message: [UInt8]) throws -> [UInt8]
}
