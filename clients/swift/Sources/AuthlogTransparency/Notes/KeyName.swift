import Foundation

/// What note signatures and cosignatures share (C2SP signed-note): key names, key IDs and verifier key strings
/// `<name>+<hex key ID>+<base64(type ‖ public key)>`.
enum KeyName {
    /// Whether `name` can name a key: not empty, no Unicode spaces or newlines, no `+`.
    static func isValid(_ name: String) -> Bool {
        !name.isEmpty && !name.contains(where: { $0 == "+" || $0.isWhitespace || $0.isNewline })
    }

    /// The key ID: the first four bytes of SHA-256(name ‖ "\n" ‖ type ‖ public key).
    static func keyID(name: String, type: UInt8, publicKey: [UInt8], crypto: some TransparencyCrypto) -> [UInt8] {
        Array(crypto.sha256(Array(name.utf8) + [0x0A, type] + publicKey).prefix(4))
    }

    /// The name, the key ID as written (lowercased) and the raw 32-byte key of a verifier key string whose key is
    /// of signature `type`; nil when it is not one. The key ID is not checked here.
    static func verifierKeyParts(_ text: String, type: UInt8) -> (name: String, keyID: String, publicKey: [UInt8])? {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(
            separator: "+",
            maxSplits: 2,
            omittingEmptySubsequences: false
        )
        guard parts.count == 3, let blob = Data(base64Encoded: String(parts[2])), blob.count == 33, blob.first == type
        else { return nil }
        return (String(parts[0]), parts[1].lowercased(), Array(blob.dropFirst()))
    }
}
