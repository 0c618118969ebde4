import Foundation

/// C2SP tlog-cosignature `cosignature/v1` with Ed25519 (signature type 0x04): a witness's timestamped
/// signature of a checkpoint. The signed message is `cosignature/v1\ntime <t>\n` followed by the checkpoint's
/// note body; the signature line's base64 is key ID ‖ big-endian 64-bit timestamp ‖ 64-byte signature, with
/// key ID = SHA-256(name ‖ "\n" ‖ 0x04 ‖ public key)[:4].
public enum Cosignature {
    /// The signature type byte of Ed25519 cosignatures.
    public static let signatureType: UInt8 = 0x04

    /// The message a cosignature at `time` signs for the note body `body`.
    public static func message(body: String, time: UInt64) -> [UInt8] {
        Array("cosignature/v1\ntime \(time)\n".utf8) + Array(body.utf8)
    }

    /// The key ID of the cosigner `name` with the raw Ed25519 key `publicKey`.
    public static func keyID(name: String, publicKey: [UInt8], crypto: some TransparencyCrypto) -> [UInt8] {
        KeyName.keyID(name: name, type: self.signatureType, publicKey: publicKey, crypto: crypto)
    }

    /// Checks that `name` is a valid key name: not empty, no Unicode spaces, no `+`.
    static func checkName(_ name: String) throws(TransparencyError) {
        guard KeyName.isValid(name) else {
            throw TransparencyError(.invalidKey, "a cosigner name is not empty and has no spaces or +")
        }
    }
}

/// Signs `cosignature/v1` cosignatures as the witness `name`.
public struct CosignatureSigner: Sendable {
    /// The cosigner (witness) name.
    public let name: String
    private let key: any Ed25519SigningKey
    /// The verifier of this signer's cosignatures.
    public let verifier: CosignatureVerifier

    /// A signer named `name` with the Ed25519 `key`, hashing with `crypto`.
    /// - Throws: ``TransparencyError`` `.invalidKey` for a bad name or a key that is not 32 bytes.
    public init(name: String, key: any Ed25519SigningKey, crypto: any TransparencyCrypto) throws(TransparencyError) {
        self.name = name
        self.key = key
        self.verifier = try CosignatureVerifier(name: name, publicKey: key.publicKeyBytes, crypto: crypto)
    }

    /// The cosignature line (with its newline) of the checkpoint note body `body` at `time`.
    /// - Throws: ``TransparencyError`` `.signingFailed` when the key cannot sign.
    public func cosign(body: String, time: UInt64) throws(TransparencyError) -> String {
        let signature: [UInt8]
        do {
            signature = try self.key.signature(of: Cosignature.message(body: body, time: time))
        } catch {
            throw TransparencyError(.signingFailed, "the witness key cannot sign: \(error)")
        }
        var blob = self.verifier.keyID
        for shift in stride(from: 56, through: 0, by: -8) {
            blob.append(UInt8(truncatingIfNeeded: time >> UInt64(shift)))
        }
        blob += signature
        return "\u{2014} \(self.name) \(Data(blob).base64EncodedString())\n"
    }
}

/// Verifies one cosigner's `cosignature/v1` lines, named by its verifier key
/// `<name>+<hex key ID>+<base64(0x04 ‖ public key)>`.
public struct CosignatureVerifier: Sendable {
    /// The cosigner name.
    public let name: String
    /// The key ID.
    public let keyID: [UInt8]
    /// The raw 32-byte Ed25519 public key.
    public let publicKey: [UInt8]
    /// The hashing and signature checks this verifier uses.
    public let crypto: any TransparencyCrypto

    /// A verifier for the raw Ed25519 `publicKey` under `name`, checking with `crypto`.
    /// - Throws: ``TransparencyError`` `.invalidKey`.
    public init(name: String, publicKey: [UInt8], crypto: any TransparencyCrypto) throws(TransparencyError) {
        try Cosignature.checkName(name)
        guard publicKey.count == 32 else { throw TransparencyError(.invalidKey, "an Ed25519 public key is 32 bytes") }
        self.name = name
        self.publicKey = publicKey
        self.crypto = crypto
        self.keyID = Cosignature.keyID(name: name, publicKey: publicKey, crypto: crypto)
    }

    /// Parses a verifier key string, checking with `crypto`.
    /// - Throws: ``TransparencyError`` `.invalidKey` when it is malformed, not type 0x04 or its key ID does not
    ///   match.
    public init(verifierKey text: String, crypto: any TransparencyCrypto) throws(TransparencyError) {
        guard let parts = KeyName.verifierKeyParts(text, type: Cosignature.signatureType) else {
            throw TransparencyError(
                .invalidKey,
                "a cosigner verifier key is <name>+<key ID>+<base64(0x04 ‖ Ed25519 key)>"
            )
        }
        try self.init(name: parts.name, publicKey: parts.publicKey, crypto: crypto)
        guard Hex.encode(self.keyID) == parts.keyID else {
            throw TransparencyError(.invalidKey, "the cosigner verifier key's ID does not match its name and key")
        }
    }

    /// The verifier key string.
    public var verifierKey: String {
        "\(self.name)+\(Hex.encode(self.keyID))+\(Data([Cosignature.signatureType] + self.publicKey).base64EncodedString())"
    }

    /// Whether `signature` is by this cosigner (same name and key ID).
    public func matches(_ signature: NoteText.Signature) -> Bool {
        signature.name == self.name && Array(signature.blob.prefix(4)) == self.keyID
    }

    /// The timestamp of `signature` when it is this cosigner's valid cosignature of `body`; nil otherwise.
    public func timestamp(of signature: NoteText.Signature, body: String) -> UInt64? {
        guard self.matches(signature), signature.blob.count == 4 + 8 + 64 else { return nil }
        let time = signature.blob[4..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard time <= UInt64(Int64.max) else { return nil }
        let valid = self.crypto.isValidEd25519Signature(
            Array(signature.blob[12...]),
            of: Cosignature.message(body: body, time: time),
            publicKey: self.publicKey
        )
        return valid ? time : nil
    }
}
