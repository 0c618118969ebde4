import AuthlogCore
import Foundation

/// The monitor's bytes on the wire, by what they carry: the receipts' event bytes, the inclusion proofs' hashes,
/// the checkpoint notes (with their cosignatures), the consistency proofs (the receipts route's `consistency`
/// and the proof route's answers), the rest of the JSON (event ids, indexes, member names), and the HTTP heads
/// of requests and answers (request lines, status lines, headers). A compressed body (authlog gzips the log's
/// per-device answers for a client that asks, as AuthlogClient does) is not split into terms: it is counted whole
/// as ``compressed``, and the per-receipt and per-request means then read 0 for what it carried.
struct MonitorBytes: Sendable {
    var requests = 0
    var receipts = 0
    var events = 0
    var proofs = 0
    var notes = 0
    var consistency = 0
    var json = 0
    var heads = 0
    var compressed = 0

    /// Every byte.
    var total: Int {
        self.events + self.proofs + self.notes + self.consistency + self.json + self.heads + self.compressed
    }

    /// The terms by name, largest first.
    var terms: [(name: String, bytes: Int)] {
        [
            ("event bytes", self.events), ("inclusion proofs", self.proofs), ("checkpoint notes", self.notes),
            ("consistency proofs", self.consistency), ("JSON ids and names", self.json), ("HTTP heads", self.heads),
            ("compressed bodies", self.compressed),
        ].sorted { $0.bytes > $1.bytes }
    }

    /// The bytes of `exchanges` (the monitor's: `/v1/log/…`), by term.
    init(_ exchanges: [WireExchange]) {
        for exchange in exchanges {
            self.requests += 1
            self.heads += exchange.heads
            // A request body (none for these GETs) counts as JSON.
            var rest = exchange.answerBody.count + exchange.requestBody
            if exchange.compressed {
                self.compressed += rest
                continue
            }
            let body = (try? JSONParser().parse(exchange.answerBody)) ?? .null
            if exchange.path == "/v1/log/proof/consistency" {
                self.consistency += rest
                continue
            }
            func take(_ value: JSONValue?, into term: inout Int) {
                guard let text = value?.stringValue else { return }
                let bytes = JSONValue.string(text).canonicalBytes.count
                term += bytes
                rest -= bytes
            }
            take(body["checkpoint"], into: &self.notes)
            take(body["proof"], into: &self.proofs)
            take(body["consistency"], into: &self.consistency)
            for receipt in body["receipts"]?.arrayValue ?? [] {
                self.receipts += 1
                take(receipt["event"] ?? receipt["event_text"], into: &self.events)
            }
            self.json += rest
        }
    }

    /// One line: the total and each term.
    var summary: String {
        "\(Self.kilobytes(self.total)) in \(self.requests) requests = "
            + [
                "event bytes \(Self.kilobytes(self.events))", "inclusion proofs \(Self.kilobytes(self.proofs))",
                "checkpoint notes \(Self.kilobytes(self.notes))",
                "consistency proofs \(Self.kilobytes(self.consistency))",
                "JSON ids and names \(Self.kilobytes(self.json))",
                "HTTP heads \(Self.kilobytes(self.heads))",
            ].joined(separator: " + ")
            + (self.compressed > 0 ? " + compressed bodies \(Self.kilobytes(self.compressed))" : "")
    }

    /// The means: per receipt (event bytes, inclusion proof) and per request (note, consistency proof, heads).
    var means: String {
        let receipts = max(self.receipts, 1)
        let requests = max(self.requests, 1)
        return "\(self.receipts) receipts, each \(self.events / receipts) B of event and "
            + "\(self.proofs / receipts) B of inclusion proof; each request \(self.notes / requests) B of note, "
            + "\(self.consistency / requests) B of consistency proof, \(self.heads / requests) B of heads"
    }

    /// `bytes` as kB (1,000 bytes), one decimal.
    static func kilobytes(_ bytes: Int) -> String { String(format: "%.1f kB", Double(bytes) / 1000) }
}
