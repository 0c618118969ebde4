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
        guard !note.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" || $0.value == 0x7F }),
            let split = note.range(of: "\n\n", options: .backwards), note.hasSuffix("\n")
        else { return nil }
        let body = String(note[..<note.index(after: split.lowerBound)])
        let lines = note[split.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard !lines.isEmpty, lines.count <= Self.maximumSignatures else { return nil }
        var signatures: [Signature] = []
        for line in lines {
            guard let signature = Self.signature(line) else { return nil }
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
