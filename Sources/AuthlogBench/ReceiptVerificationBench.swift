import AuthlogClient
import AuthlogCrypto
import AuthlogTransparency
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The device's work per receipt: a `GET /v1/log/receipts` answer of `k` receipts read (JSON, `event_text`) and
/// verified with ``ReceiptBatch/verify(logKey:policy:)`` under the pins (the note's signature, every witness's
/// cosignature, every event's canonical bytes, the multi-leaf proof) and, as the monitor does when a round's
/// checkpoint is the one it verified last, with a ``ReceiptBatchVerifier`` (the events and the proof), against the same request's time on the
/// network (loopback, one URLSession, the server in this process); and the single receipt route
/// (`GET /v1/log/receipt/{id}`, one `tlog-proof` text verified with ``LogReceipt/verify(_:logKey:witnesses:)``)
/// for comparison. Each figure is the median of 10 blocks' means (`repetitions` in all): the machine is shared,
/// and a block that another process slowed does not move the median.
enum ReceiptVerificationBench {
    /// One line of figures, in microseconds.
    struct Figure {
        let label: String
        let receipts: Int
        let verify: Double
        let network: Double
    }

    static func measure(
        baseURL: URL,
        accessToken: String,
        eventIDs: [String],
        pins: LogPins,
        repetitions: Int
    ) async throws -> [Figure] {
        // The network first, every figure; then the verifications, with nothing else running in this process.
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        var answers: [(size: Int, body: Data, network: Double)] = []
        for size in [1, 8, 64] where size <= eventIDs.count {
            var components = URLComponents(
                url: baseURL.appendingPathComponent("v1/log/receipts"),
                resolvingAgainstBaseURL: false
            )
            components?.queryItems = [
                URLQueryItem(name: "ids", value: eventIDs.prefix(size).joined(separator: ",")),
                URLQueryItem(name: "event_form", value: "text"),  // as the monitor asks
            ]
            guard let url = components?.url else { throw BenchFailure("no receipts URL") }
            var request = URLRequest(url: url)
            request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
            let (body, network) = try await Self.fetch(request, session: session, repetitions: repetitions)
            answers.append((size, body, network))
        }
        guard let first = eventIDs.first, let smallest = answers.first else { return [] }
        var request = URLRequest(url: baseURL.appendingPathComponent("v1/log/receipt/\(first)"))
        request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
        let (single, singleNetwork) = try await Self.fetch(request, session: session, repetitions: repetitions)

        var figures: [Figure] = []
        for (size, body, network) in answers {
            let verify = try Self.time(repetitions) {
                let verified = try Self.batch(body).verify(logKey: pins.logKey, policy: pins.policy)
                guard verified.quorumMet, verified.events.count == size else {
                    throw BenchFailure("the batch of \(size) did not verify witnessed")
                }
            }
            figures.append(Figure(label: "batch of \(size)", receipts: size, verify: verify, network: network))
            // What the monitor does when a round's checkpoint is the one it verified last: its
            // ReceiptBatchVerifier checks the events and the proof only.
            var verifier = ReceiptBatchVerifier(logKey: pins.logKey, policy: pins.policy)
            _ = try verifier.verify(Self.batch(body))
            let known = try Self.time(repetitions) {
                let verified = try verifier.verify(Self.batch(body))
                guard verified.quorumMet, verified.events.count == size else {
                    throw BenchFailure("the batch of \(size) did not verify witnessed")
                }
            }
            figures.append(
                Figure(
                    label: "batch of \(size), its checkpoint verified before",
                    receipts: size,
                    verify: known,
                    network: network
                )
            )
        }
        let text = String(decoding: single, as: UTF8.self)
        let verify = try Self.time(repetitions) {
            _ = try LogReceipt.verify(text, logKey: pins.logKey, witnesses: pins.policy)
        }
        figures.append(Figure(label: "single receipt route", receipts: 1, verify: verify, network: singleNetwork))
        // The checkpoint alone: an empty batch checks the note's signature and the cosignatures only.
        let note = try Self.batch(smallest.body).note
        let alone = try Self.time(repetitions) {
            _ = try ReceiptBatch(note: note, entries: [], proof: []).verify(logKey: pins.logKey, policy: pins.policy)
        }
        figures.append(
            Figure(
                label: "the checkpoint alone (its note signature and cosignatures)",
                receipts: 0,
                verify: alone,
                network: 0
            )
        )
        return figures + (try Self.signatureFigures(note: note, pins: pins, repetitions: repetitions))
    }

    /// One Ed25519 signature check (the note's own) through the device's crypto, and for comparison through the
    /// server's OpenSSL adapter (which also makes the key per check) and OpenSSL with the key made once.
    private static func signatureFigures(note: String, pins: LogPins, repetitions: Int) throws -> [Figure] {
        var figures: [Figure] = []
        let (body, blob) = try Self.logSignature(of: note)
        let one = try Self.time(repetitions) {
            guard pins.logKey.isValidSignature(blob, of: body) else { throw BenchFailure("the note's signature") }
        }
        figures.append(
            Figure(
                label: "one Ed25519 signature (the log's), the device's crypto",
                receipts: 0,
                verify: one,
                network: 0
            )
        )
        // For comparison, on this machine: the server's OpenSSL adapter (a key made per check, as the device's)
        // and OpenSSL with the key made once.
        let server = try NoteVerifier(name: pins.logKey.name, publicKey: pins.logKey.publicKey, crypto: .openSSL)
        let perCheck = try Self.time(repetitions) {
            guard server.isValidSignature(blob, of: body) else { throw BenchFailure("the note's signature") }
        }
        figures.append(
            Figure(label: "the same, the server's OpenSSL adapter", receipts: 0, verify: perCheck, network: 0)
        )
        let kept = try PublicKey(ed25519: pins.logKey.publicKey)
        let signature = Array(blob.dropFirst(4))
        let message = Array(body.utf8)
        let once = try Self.time(repetitions) { try kept.verify(signature, for: message, algorithm: .edDSA) }
        figures.append(
            Figure(label: "the same, OpenSSL with the key made once", receipts: 0, verify: once, network: 0)
        )
        return figures
    }

    /// A note's body and its first signature line's blob (key hash and signature).
    private static func logSignature(of note: String) throws -> (String, [UInt8]) {
        guard let split = note.range(of: "\n\n"),
            let line = note[split.upperBound...].split(separator: "\n").first,
            let text = line.split(separator: " ").last,
            let blob = Data(base64Encoded: String(text))
        else { throw BenchFailure("not a signed note") }
        return (String(note[..<split.lowerBound]) + "\n", Array(blob))
    }

    /// The blocks each figure is the median of.
    private static let blocks = 10

    /// The answer's body and the time of one request (the median block's mean), in microseconds; every answer
    /// must be 200.
    private static func fetch(
        _ request: URLRequest,
        session: URLSession,
        repetitions: Int
    ) async throws -> (Data, Double) {
        var body = Data()
        let clock = ContinuousClock()
        let size = max(1, repetitions / Self.blocks)
        var means: [Double] = []
        for _ in 0..<Self.blocks {
            let start = clock.now
            for _ in 0..<size {
                let (data, response) = try await session.data(for: request)
                guard (response as? HTTPURLResponse)?.statusCode == 200 else {
                    throw BenchFailure(
                        "\(request.url?.path ?? "") answered \((response as? HTTPURLResponse)?.statusCode ?? 0)"
                    )
                }
                body = data
            }
            means.append(Self.microseconds(clock.now - start) / Double(size))
        }
        return (body, Self.median(means))
    }

    /// The time of one run of `work` (the median block's mean), in microseconds.
    private static func time(_ repetitions: Int, _ work: () throws -> Void) throws -> Double {
        let clock = ContinuousClock()
        let size = max(1, repetitions / Self.blocks)
        var means: [Double] = []
        for _ in 0..<Self.blocks {
            let start = clock.now
            for _ in 0..<size { try work() }
            means.append(Self.microseconds(clock.now - start) / Double(size))
        }
        return Self.median(means)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// The receipts answer as the device reads it: the note, each receipt's id, position and bytes, the proof.
    private static func batch(_ body: Data) throws -> ReceiptBatch {
        let answer = try JSONDecoder().decode(Answer.self, from: body)
        var entries: [ReceiptBatch.Entry] = []
        for receipt in answer.receipts {
            guard let bytes = EventText.bytes(of: receipt.eventText) else {
                throw BenchFailure("event_text above U+00FF")
            }
            entries.append(ReceiptBatch.Entry(eventID: receipt.eventID, position: receipt.index + 1, eventBytes: bytes))
        }
        guard let proof = Data(base64Encoded: answer.proof), proof.count % 32 == 0 else {
            throw BenchFailure("bad proof")
        }
        let hashes = stride(from: 0, to: proof.count, by: 32).map { Array(proof[$0..<($0 + 32)]) }
        return ReceiptBatch(note: answer.checkpoint, entries: entries, proof: hashes)
    }

    private struct Answer: Decodable {
        struct Receipt: Decodable {
            let eventID: String
            let index: Int64
            let eventText: String

            enum CodingKeys: String, CodingKey {
                case eventID = "event_id"
                case eventText = "event_text"
                case index
            }
        }

        let checkpoint: String
        let receipts: [Receipt]
        let proof: String
    }

    private static func microseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    }
}
