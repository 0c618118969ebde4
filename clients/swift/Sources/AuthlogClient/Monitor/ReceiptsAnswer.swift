import AuthlogTransparency
import Foundation

/// The answer of `GET /v1/log/receipts`, read with every member bounded: the checkpoint note, the receipts as a
/// ``ReceiptBatch``, the consistency proof from the size the device asked from, and the events still pending
/// or not found. Nothing here is verified yet; ``LogMonitor`` does that with the pins.
struct ReceiptsAnswer: Sendable {
    /// The consistency member as sent: absent, hashes, or not hashes (kept, because whether that is an alarm
    /// depends on whether the log had to give a proof).
    enum Consistency: Sendable, Equatable {
        case absent
        case hashes([[UInt8]])
        case malformed(MonitorError)
    }

    /// The most hashes a multi-leaf proof of 64 receipts can need in a tree of at most 2^63 leaves.
    static let maximumProofHashes = 64 * 63
    /// The most hashes an RFC 9162 consistency proof can need in a tree of at most 2^63 leaves.
    static let maximumConsistencyHashes = 2 * 63
    /// The most receipts one answer may hold.
    static let maximumReceipts = 64

    /// The receipts against the checkpoint note.
    var batch: ReceiptBatch
    /// The consistency proof from the `from` the device sent.
    var consistency: Consistency
    /// Events the server says no signed checkpoint covers yet (lowercase ids).
    var pending: [String]
    /// Events the server does not give (lowercase ids).
    var notFound: [String]

    /// Reads `data`, the answer to a request for the ids `asked` (lowercase).
    /// - Throws: ``MonitorError`` for a body over `limit` bytes, JSON not of the shape, a member missing, bad
    ///   base64, a proof not of whole hashes or over its bound, a note over ``LogMonitor/maximumNoteBytes``,
    ///   more than 64 receipts, or an event not asked for or named twice.
    static func parse(_ data: Data, asked: Set<String>, limit: Int) throws(MonitorError) -> ReceiptsAnswer {
        let wire = try AnswerJSON.decode(Wire.self, from: data, limit: limit)
        guard wire.checkpoint.utf8.count <= LogMonitor.maximumNoteBytes else {
            throw .noteTooLarge(limit: LogMonitor.maximumNoteBytes)
        }
        guard ["yes", "pending", "none"].contains(wire.witnessed) else {
            throw .malformedAnswer("`witnessed` is not yes, pending or none")
        }
        guard wire.receipts.count <= Self.maximumReceipts else {
            throw .malformedAnswer("more than \(Self.maximumReceipts) receipts")
        }
        var named: Set<String> = []
        func name(_ id: String) throws(MonitorError) -> String {
            let lowered = id.lowercased()
            guard asked.contains(lowered), named.insert(lowered).inserted else {
                throw .unexpectedEvent(String(id.prefix(64)))
            }
            return lowered
        }
        var entries: [ReceiptBatch.Entry] = []
        for receipt in wire.receipts {
            let id = try name(receipt.eventID)
            guard receipt.index >= 0, receipt.index < (1 << 62) else {
                throw .malformedAnswer("a receipt's index is outside 0…2^62")
            }
            entries.append(
                ReceiptBatch.Entry(eventID: id, position: receipt.index + 1, eventBytes: try Self.eventBytes(receipt))
            )
        }
        guard entries.isEmpty || wire.proof != nil else { throw .missingField("proof") }
        let proof = try Self.hashes(wire.proof ?? "", field: "proof", limit: Self.maximumProofHashes)
        var consistency = Consistency.absent
        if let text = wire.consistency, !text.isEmpty {
            do {
                consistency = .hashes(
                    try Self.hashes(text, field: "consistency", limit: Self.maximumConsistencyHashes)
                )
            } catch {
                consistency = .malformed(error)
            }
        }
        var pending: [String] = []
        for item in wire.pending ?? [] { pending.append(try name(item.eventID)) }
        var notFound: [String] = []
        for id in wire.notFound ?? [] { notFound.append(try name(id)) }
        return ReceiptsAnswer(
            batch: ReceiptBatch(note: wire.checkpoint, entries: entries, proof: proof),
            consistency: consistency,
            pending: pending,
            notFound: notFound
        )
    }

    /// The event's bytes: `event` in base64, or `event_text`, one character (U+0000…U+00FF) per byte; exactly one.
    /// - Throws: ``MonitorError/badBase64(field:)``, ``MonitorError/malformedAnswer(_:)``.
    private static func eventBytes(_ receipt: WireReceipt) throws(MonitorError) -> [UInt8] {
        switch (receipt.event, receipt.eventText) {
        case (let base64?, nil):
            guard let bytes = Data(base64Encoded: base64) else { throw .badBase64(field: "receipts.event") }
            return Array(bytes)
        case (nil, let text?):
            guard let bytes = EventText.bytes(of: text) else {
                throw .malformedAnswer("a receipt's event_text holds a character above U+00FF")
            }
            return bytes
        default:
            throw .malformedAnswer("a receipt must hold exactly one of event and event_text")
        }
    }

    /// The 32-byte hashes of the base64 `text` of member `field`, at most `limit` of them.
    /// - Throws: ``MonitorError/badBase64(field:)``, ``MonitorError/badProof(field:detail:)``.
    static func hashes(_ text: String, field: String, limit: Int) throws(MonitorError) -> [[UInt8]] {
        // Base64 of `limit` hashes, rounded up: a longer text is refused before it is decoded.
        guard text.utf8.count <= (limit * 32 + 2) / 3 * 4 else {
            throw .badProof(field: field, detail: "more than \(limit) hashes")
        }
        guard let bytes = Data(base64Encoded: text) else { throw .badBase64(field: field) }
        guard bytes.count % 32 == 0 else {
            throw .badProof(field: field, detail: "\(bytes.count) bytes are not whole 32-byte hashes")
        }
        let all = Array(bytes)
        return stride(from: 0, to: all.count, by: 32).map { Array(all[$0..<($0 + 32)]) }
    }

    /// The members as sent.
    private struct Wire: Decodable {
        let checkpoint: String
        let witnessed: String
        let receipts: [WireReceipt]
        let proof: String?
        let consistency: String?
        let pending: [WirePending]?
        let notFound: [String]?

        enum CodingKeys: String, CodingKey {
            case checkpoint, witnessed, receipts, proof, consistency, pending
            case notFound = "not_found"
        }
    }

    /// `{"event_id", "index", "event"}` or `{"event_id", "index", "event_text"}`.
    private struct WireReceipt: Decodable {
        let eventID: String
        let index: Int64
        let event: String?
        let eventText: String?

        enum CodingKeys: String, CodingKey {
            case eventID = "event_id"
            case eventText = "event_text"
            case index, event
        }
    }

    /// `{"event_id", "reason"}`.
    private struct WirePending: Decodable {
        let eventID: String

        enum CodingKeys: String, CodingKey {
            case eventID = "event_id"
        }
    }
}
