import Foundation

/// A signed note (C2SP signed-note) split into its text and its signature lines, without checking any
/// signature: the text ends with a newline, the last empty line separates it from one or more lines
/// `— <key name> <base64>`.
public struct NoteText: Sendable, Equatable {
    /// One signature line.
    public struct Signature: Sendable, Equatable {
        /// The key name.
        public var name: String
        /// The decoded base64: a 4-byte key ID and the signature.
        public var blob: [UInt8]
        /// The line as sent, without its newline.
        public var line: String
    }

    /// The most signature lines read from one note (signed-note asks verifiers to accept at least 16).
    public static let maximumSignatures = 64

    /// The note text (the body), with its final newline.
    public var body: String
    /// The signature lines, in order.
    public var signatures: [Signature]

    /// Splits `note`; nil when it is not a signed note: no empty line, a signature line not of the form, a
    /// control character other than newline, or more than ``maximumSignatures`` signatures.
    public init?(_ note: String) {
        guard let parsed = try? NoteText(parsing: note) else { return nil }
        self = parsed
    }

    /// Splits `note` as ``init(_:)`` does, or says why it is not a signed note: the one set of rules that
    /// ``NoteVerifier/open(_:)`` and the witness policies read notes by.
    /// - Throws: ``NoteVerifier/Failure/malformed(_:)`` naming the first rule broken.
    init(parsing note: String) throws(NoteVerifier.Failure) {
        // Bytes, not Characters: the rules are about bytes (as Go's sumdb/note reads them), and walking UTF-8
        // is some twenty times faster than Foundation's search and grapheme-aware splitting on Linux. Every
        // byte below 0x20 or 0x7F is one ASCII character in UTF-8 (a multi-byte sequence has none).
        let bytes = Array(note.utf8)
        guard !bytes.contains(where: { $0 < 0x20 && $0 != Self.newline || $0 == 0x7F }) else {
            throw .malformed("a control character other than newline")
        }
        guard let split = Self.lastEmptyLine(in: bytes) else {
            throw .malformed("no empty line before the signatures")
        }
        guard bytes.last == Self.newline else { throw .malformed("the last signature line has no newline") }
        let body = String(decoding: bytes[...split], as: UTF8.self)
        let lines = bytes[(split + 2)...].split(separator: Self.newline, omittingEmptySubsequences: false).dropLast()
        guard !lines.isEmpty else { throw .malformed("no signature line") }
        guard lines.count <= Self.maximumSignatures else {
            throw .malformed("more than \(Self.maximumSignatures) signature lines")
        }
        var signatures: [Signature] = []
        for line in lines {
            guard line.starts(with: Self.dashSpace) else { throw .malformed("a signature line does not start with —") }
            guard let signature = Self.signature(bytes: line) else {
                throw .malformed("a signature line is not `— name base64`")
            }
            signatures.append(signature)
        }
        self.body = body
        self.signatures = signatures
    }

    /// The line `— <name> <base64>` (without its newline) as a signature; nil when it is not of that form: a
    /// name that is empty or holds `+`, not exactly one space between name and base64, bad base64, or fewer
    /// than 5 decoded bytes (a 4-byte key ID and something).
    public static func signature(_ line: Substring) -> Signature? {
        Self.signature(bytes: Array(line.utf8)[...])
    }

    private static let newline = UInt8(ascii: "\n")
    /// `— ` (U+2014, a space) in UTF-8.
    private static let dashSpace: [UInt8] = [0xE2, 0x80, 0x94, 0x20]

    /// The index of the first newline of the last `\n\n` in `bytes`.
    private static func lastEmptyLine(in bytes: [UInt8]) -> Int? {
        var index = bytes.count - 2
        while index >= 0 {
            if bytes[index] == Self.newline, bytes[index + 1] == Self.newline { return index }
            index -= 1
        }
        return nil
    }

    private static func signature(bytes line: ArraySlice<UInt8>) -> Signature? {
        guard line.starts(with: Self.dashSpace) else { return nil }
        let fields = line.dropFirst(Self.dashSpace.count).split(
            separator: UInt8(ascii: " "),
            omittingEmptySubsequences: false
        )
        guard fields.count == 2, let name = fields.first, let encoded = fields.last, !name.isEmpty,
            !name.contains(UInt8(ascii: "+")),
            let blob = Data(base64Encoded: Data(encoded)), blob.count >= 5
        else { return nil }
        return Signature(
            name: String(decoding: name, as: UTF8.self),
            blob: Array(blob),
            line: String(decoding: line, as: UTF8.self)
        )
    }

    /// The note as text: the body, an empty line, the signature lines.
    public var text: String {
        self.body + "\n" + self.signatures.map { $0.line + "\n" }.joined()
    }
}
