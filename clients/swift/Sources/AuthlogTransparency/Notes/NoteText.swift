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
        guard !note.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F }) else {
            throw .malformed("a control character other than newline")
        }
        guard let split = note.range(of: "\n\n", options: .backwards) else {
            throw .malformed("no empty line before the signatures")
        }
        guard note.hasSuffix("\n") else { throw .malformed("the last signature line has no newline") }
        let body = String(note[..<note.index(after: split.lowerBound)])
        let lines = note[split.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard !lines.isEmpty else { throw .malformed("no signature line") }
        guard lines.count <= Self.maximumSignatures else {
            throw .malformed("more than \(Self.maximumSignatures) signature lines")
        }
        var signatures: [Signature] = []
        for line in lines {
            guard line.hasPrefix("\u{2014} ") else { throw .malformed("a signature line does not start with —") }
            guard let signature = Self.signature(line) else {
                throw .malformed("a signature line is not `— name base64`")
            }
            signatures.append(signature)
        }
        self.body = body
        self.signatures = signatures
    }

    /// Parses one line `— <name> <base64>` (without its newline); nil when it is not one.
    public static func signature(_ line: Substring) -> Signature? {
        guard line.hasPrefix("\u{2014} ") else { return nil }
        let fields = line.dropFirst(2).split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 2, !fields[0].isEmpty, !fields[0].contains("+"),
            let blob = Data(base64Encoded: String(fields[1])), blob.count >= 5
        else { return nil }
        return Signature(name: String(fields[0]), blob: Array(blob), line: String(line))
    }

    /// The note as text: the body, an empty line, the signature lines.
    public var text: String {
        self.body + "\n" + self.signatures.map { $0.line + "\n" }.joined()
    }
}
