import AuthlogCore
public import AuthlogCrypto
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
    public static func keyID(name: String, publicKey: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(Array(name.utf8) + [0x0A, self.signatureType] + publicKey).prefix(4))
    }

    /// Checks that `name` is a valid key name: not empty, no Unicode spaces, no `+`.
    static func checkName(_ name: String) throws(CryptoError) {
        guard !name.isEmpty, !name.contains(where: { $0 == "+" || $0.isWhitespace || $0.isNewline }) else {
            throw CryptoError(.invalidKey, "a cosigner name is not empty and has no spaces or +")
        }
    }
}

/// Signs `cosignature/v1` cosignatures as the witness `name`.
public struct CosignatureSigner: Sendable {
    /// The cosigner (witness) name.
    public let name: String
    private let key: PrivateKey
    /// The verifier of this signer's cosignatures.
    public let verifier: CosignatureVerifier

    /// A signer named `name` with the Ed25519 `key`.
    /// - Throws: ``CryptoError`` `.invalidKey` for another kind of key or a bad name.
    public init(name: String, key: PrivateKey) throws(CryptoError) {
        guard key.algorithm == .edDSA else { throw CryptoError(.invalidKey, "cosignatures are signed with Ed25519") }
        self.name = name
        self.key = key
        self.verifier = try CosignatureVerifier(name: name, publicKey: try key.publicKey())
    }

    /// The cosignature line (with its newline) of the checkpoint note body `body` at `time`.
    /// - Throws: ``CryptoError`` when OpenSSL cannot sign.
    public func cosign(body: String, time: UInt64) throws(CryptoError) -> String {
        let signature = try self.key.sign(Cosignature.message(body: body, time: time))
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
    private let publicKey: PublicKey
    private let rawKey: [UInt8]

    /// A verifier for `publicKey` (Ed25519) under `name`.
    /// - Throws: ``CryptoError`` `.invalidKey`.
    public init(name: String, publicKey: PublicKey) throws(CryptoError) {
        try Cosignature.checkName(name)
        self.name = name
        self.publicKey = publicKey
        self.rawKey = try publicKey.ed25519Bytes()
        self.keyID = Cosignature.keyID(name: name, publicKey: self.rawKey)
    }

    /// Parses a verifier key string.
    /// - Throws: ``CryptoError`` `.invalidKey` when it is malformed, not type 0x04 or its key ID does not match.
    public init(verifierKey text: String) throws(CryptoError) {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(
            separator: "+",
            maxSplits: 2,
            omittingEmptySubsequences: false
        )
        guard parts.count == 3, let blob = Data(base64Encoded: String(parts[2])), blob.count == 33,
            blob.first == Cosignature.signatureType
        else {
            throw CryptoError(
                .invalidKey,
                "a cosigner verifier key is <name>+<key ID>+<base64(0x04 ‖ Ed25519 key)>"
            )
        }
        try self.init(name: String(parts[0]), publicKey: try PublicKey(ed25519: Array(blob.dropFirst())))
        guard Hex.encode(self.keyID) == parts[1].lowercased() else {
            throw CryptoError(.invalidKey, "the cosigner verifier key's ID does not match its name and key")
        }
    }

    /// The verifier key string.
    public var verifierKey: String {
        "\(self.name)+\(Hex.encode(self.keyID))+\(Data([Cosignature.signatureType] + self.rawKey).base64EncodedString())"
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
        do {
            try self.publicKey.verify(
                Array(signature.blob[12...]),
                for: Cosignature.message(body: body, time: time),
                algorithm: .edDSA
            )
            return time
        } catch {
            return nil
        }
    }
}
