import AuthlogTransparency
import Foundation

/// The body of a C2SP tlog-witness `add-checkpoint` request: `old <size>\n`, at most 63 consistency proof lines
/// of one base64 hash each, an empty line, and the signed checkpoint note.
struct AddCheckpointRequest: Sendable, Equatable {
    /// The most consistency proof lines a client may send.
    static let maximumProofLines = 63

    /// The size of the checkpoint the client believes the witness holds.
    var oldSize: Int64
    /// The consistency proof from `oldSize` to the checkpoint's size.
    var proof: [[UInt8]]
    /// The checkpoint note, signature lines and all.
    var note: NoteText
    /// The parsed checkpoint body.
    var checkpoint: Checkpoint

    /// Parses `body`.
    /// - Throws: ``WitnessAnswer`` 400 naming what is wrong.
    init(body: [UInt8]) throws(WitnessAnswer) {
        guard let text = String(validatingUTF8Bytes: body) else { throw .badRequest("the body is not UTF-8") }
        guard let blank = text.range(of: "\n\n") else {
            throw .badRequest("no empty line between the old size and proof lines and the checkpoint")
        }
        let head = text[..<blank.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = head.first, first.hasPrefix("old ") else {
            throw .badRequest("the first line is not `old <size>`")
        }
        let digits = first.dropFirst(4)
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= "0" && $0 <= "9" }), let oldSize = Int64(digits),
            String(oldSize) == digits
        else { throw .badRequest("the old size is not a decimal without leading zeroes in 0…2^63-1") }
        let lines = head.dropFirst()
        guard lines.count <= Self.maximumProofLines else {
            throw .badRequest("more than \(Self.maximumProofLines) consistency proof lines")
        }
        var proof: [[UInt8]] = []
        for line in lines {
            guard let hash = Data(base64Encoded: String(line)), hash.count == 32 else {
                throw .badRequest("a consistency proof line is not one base64 SHA-256 hash")
            }
            proof.append(Array(hash))
        }
        let noteText = String(text[blank.upperBound...])
        guard let note = NoteText(noteText) else { throw .badRequest("the checkpoint is not a signed note") }
        guard let checkpoint = Checkpoint(body: note.body) else {
            throw .badRequest("the note is not a checkpoint (origin, size in 0…2^63-1, base64 root)")
        }
        self.oldSize = oldSize
        self.proof = proof
        self.note = note
        self.checkpoint = checkpoint
    }
}

extension String {
    /// The string of `bytes` when they are valid UTF-8.
    init?(validatingUTF8Bytes bytes: [UInt8]) {
        guard let string = String(bytes: bytes, encoding: .utf8) else { return nil }
        self = string
    }
}
