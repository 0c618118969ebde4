import Foundation

/// A checkpoint body in the C2SP tlog-checkpoint format: the origin line, the tree size in decimal and the
/// root hash in standard base64, each followed by a newline.
public struct Checkpoint: Sendable, Equatable {
    /// The log's origin: a unique, schema-less identifier such as `auth.example.com/log`.
    public var origin: String
    /// The number of leaves.
    public var size: Int64
    /// The root hash (32 bytes).
    public var root: [UInt8]

    /// Creates a checkpoint.
    public init(origin: String, size: Int64, root: [UInt8]) {
        self.origin = origin
        self.size = size
        self.root = root
    }

    /// The note body.
    public var body: String { "\(self.origin)\n\(self.size)\n\(Data(self.root).base64EncodedString())\n" }

    /// Parses a note body; nil when it is not a checkpoint (extension lines after the root are allowed).
    public init?(body: String) {
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        guard body.hasSuffix("\n"), lines.count >= 4, !lines[0].isEmpty,
            lines[1].allSatisfy(\.isASCII), let size = Int64(lines[1]), size >= 0, String(size) == lines[1],
            let root = Data(base64Encoded: String(lines[2])), root.count == 32
        else { return nil }
        self.init(origin: String(lines[0]), size: size, root: Array(root))
    }
}

/// Signs notes (C2SP signed-note) with an Ed25519 key: the body, an empty line, and one signature line
/// `— <name> <base64(key hash ‖ signature)>`.
public struct NoteSigner: Sendable {
    /// The key name (by convention the log's origin).
    public let name: String
    private let key: any Ed25519SigningKey
    /// The verifier for this signer's key.
    public let verifier: NoteVerifier

    /// A signer named `name` with the Ed25519 `key`, hashing with `crypto`.
    /// - Throws: ``TransparencyError`` `.invalidKey` for a name with spaces or `+`, or a key that is not 32 bytes.
    public init(name: String, key: any Ed25519SigningKey, crypto: any TransparencyCrypto) throws(TransparencyError) {
        self.name = name
        self.key = key
        self.verifier = try NoteVerifier(name: name, publicKey: key.publicKeyBytes, crypto: crypto)
    }

    /// The signed note of `body` (which ends with a newline).
    /// - Throws: ``TransparencyError`` `.signingFailed` when the key cannot sign.
    public func sign(_ body: String) throws(TransparencyError) -> String {
        let signature: [UInt8]
        do {
            signature = try self.key.signature(of: Array(body.utf8))
        } catch {
            throw TransparencyError(.signingFailed, "the checkpoint key cannot sign: \(error)")
        }
        let blob = Data(self.verifier.keyHash + signature).base64EncodedString()
        return body + "\n\u{2014} \(self.name) \(blob)\n"
    }
}

/// Checks notes signed by one Ed25519 key, named by a verifier key string
/// `<name>+<hex key hash>+<base64(0x01 ‖ public key)>` (the form Go's `sumdb/note` reads).
public struct NoteVerifier: Sendable {
    /// The signature type byte of Ed25519 note signatures.
    public static let signatureType: UInt8 = 0x01

    /// The key name.
    public let name: String
    /// The first four bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key).
    public let keyHash: [UInt8]
    /// The raw 32-byte Ed25519 public key.
    public let publicKey: [UInt8]
    /// The hashing and signature checks this verifier uses.
    public let crypto: any TransparencyCrypto

    /// A verifier for the raw Ed25519 `publicKey` under `name`, checking with `crypto`.
    /// - Throws: ``TransparencyError`` `.invalidKey` for a key that is not 32 bytes or a name with spaces, `+` or
    ///   newlines.
    public init(name: String, publicKey: [UInt8], crypto: any TransparencyCrypto) throws(TransparencyError) {
        guard KeyName.isValid(name) else {
            throw TransparencyError(.invalidKey, "a note key name is not empty and has no spaces or +")
        }
        guard publicKey.count == 32 else { throw TransparencyError(.invalidKey, "an Ed25519 public key is 32 bytes") }
        self.name = name
        self.publicKey = publicKey
        self.crypto = crypto
        self.keyHash = KeyName.keyID(name: name, type: Self.signatureType, publicKey: publicKey, crypto: crypto)
    }

    /// Parses a verifier key string, checking with `crypto`.
    /// - Throws: ``TransparencyError`` `.invalidKey` when it is malformed or its hash does not match.
    public init(verifierKey text: String, crypto: any TransparencyCrypto) throws(TransparencyError) {
        guard let parts = KeyName.verifierKeyParts(text, type: Self.signatureType) else {
            throw TransparencyError(.invalidKey, "a verifier key is <name>+<hash>+<base64 key> with an Ed25519 key")
        }
        try self.init(name: parts.name, publicKey: parts.publicKey, crypto: crypto)
        guard Hex.encode(self.keyHash) == parts.keyID else {
            throw TransparencyError(.invalidKey, "the verifier key's hash does not match its name and key")
        }
    }

    /// The verifier key string.
    public var verifierKey: String {
        "\(self.name)+\(Hex.encode(self.keyHash))+\(Data([Self.signatureType] + self.publicKey).base64EncodedString())"
    }

    /// Whether `blob` (a signature line's decoded base64: key hash ‖ signature) is this key's valid signature
    /// of `body`; false for another key's hash.
    public func isValidSignature(_ blob: [UInt8], of body: String) -> Bool {
        guard blob.count == 4 + 64, Array(blob.prefix(4)) == self.keyHash else { return false }
        return self.crypto.isValidEd25519Signature(
            Array(blob.dropFirst(4)),
            of: Array(body.utf8),
            publicKey: self.publicKey
        )
    }

    /// Why a note does not open.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The text is not a signed note.
        case malformed(String)
        /// No signature line is by this key.
        case notSignedByKey(String)
        /// This key's signature line does not verify.
        case badSignature(String)
        /// No key of a keyring signed the note; the note's own signers, as `<name>+<hex key hash>`.
        case unknownKey(String)

        /// The reason as a sentence.
        public var description: String {
            switch self {
            case .malformed(let why): "not a signed note: \(why)"
            case .notSignedByKey(let name): "the note has no signature by the key \(name)"
            case .badSignature(let name): "the signature by \(name) does not verify"
            case .unknownKey(let signers): "signed by an unknown key (\(signers))"
            }
        }
    }

    /// The body of `note` once a signature by this key verifies. The note is read by ``NoteText``'s rules: at most
    /// ``NoteText/maximumSignatures`` signature lines, no control character but newline, each line exactly
    /// `— <name> <base64>`.
    /// - Throws: ``Failure``.
    public func open(_ note: String) throws(Failure) -> String {
        let text = try NoteText(parsing: note)
        var sawKey = false
        let message = Array(text.body.utf8)
        for signature in text.signatures
        where signature.name == self.name && Array(signature.blob.prefix(4)) == self.keyHash {
            sawKey = true
            let bytes = Array(signature.blob.dropFirst(4))
            if self.crypto.isValidEd25519Signature(bytes, of: message, publicKey: self.publicKey) {
                return text.body
            }
        }
        throw sawKey ? .badSignature(self.name) : .notSignedByKey(self.name)
    }
}
