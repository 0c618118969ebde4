import Foundation

/// A receipt: a `c2sp.org/tlog-proof@v1` file that proves, offline, that the log holds one event. Its `extra`
/// line is the event's canonical bytes (docs/events.md), so the leaf is
/// `SHA-256(0x00 ‖ be64(index + 1) ‖ SHA-256(extra))`; then the event's index, its inclusion proof in the
/// checkpointed tree, an empty line and the checkpoint note (with the witnesses' cosignatures when there are).
/// The log's verifier key (and the witnesses' for their cosignatures) is all it takes to check it.
public struct LogReceipt: Sendable, Equatable {
    /// The first line of every receipt.
    public static let header = "c2sp.org/tlog-proof@v1"

    /// The event's position (its index + 1).
    public var position: Int64
    /// The event's canonical bytes.
    public var eventBytes: [UInt8]
    /// The inclusion proof, bottom up.
    public var proof: [[UInt8]]
    /// The checkpoint note the proof is against, verbatim.
    public var note: String

    /// Creates a receipt.
    public init(position: Int64, eventBytes: [UInt8], proof: [[UInt8]], note: String) {
        self.position = position
        self.eventBytes = eventBytes
        self.proof = proof
        self.note = note
    }

    /// The file's text.
    public var text: String {
        var lines = [Self.header, "extra " + Data(self.eventBytes).base64EncodedString(), "index \(self.position - 1)"]
        lines += self.proof.map { Data($0).base64EncodedString() }
        return lines.joined(separator: "\n") + "\n\n" + self.note
    }

    /// Why a receipt does not prove its event.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The text is not a tlog-proof file of this shape.
        case malformed(String)
        /// The checkpoint is not signed by the log's key.
        case checkpoint(NoteVerifier.Failure)
        /// The checkpoint's origin is not the name of the log key that signed it.
        case wrongOrigin(checkpoint: String, key: String)
        /// The log key (its verifier key) is not one of the policy's logs; nil when the policy lists no log.
        case logNotInPolicy(String?)
        /// The inclusion proof does not lead from the event to the checkpoint's root.
        case notIncluded
        /// Fewer than the policy's quorum of witnesses cosigned the checkpoint (those that did are named).
        case notWitnessed(cosigned: [String], invalid: [String])

        /// The reason as a sentence.
        public var description: String {
            switch self {
            case .malformed(let why): "not a receipt: \(why)"
            case .checkpoint(let failure): "the checkpoint: \(failure)"
            case .wrongOrigin(let origin, let key):
                "the checkpoint's origin \(origin) is not the name of the log key \(key) that signed it"
            case .logNotInPolicy(let key?): "the log key \(key) is not one of the policy's logs"
            case .logNotInPolicy(nil): "the policy lists no log to check the checkpoint with"
            case .notIncluded: "the inclusion proof does not lead from the event to the checkpoint's root"
            case .notWitnessed(let cosigned, let invalid):
                "the checkpoint is not witnessed: cosigned by \(cosigned.isEmpty ? "none" : cosigned.joined(separator: ", "))"
                    + (invalid.isEmpty ? "" : "; cosignatures that do not verify: \(invalid.joined(separator: ", "))")
            }
        }
    }

    /// The most bytes a receipt file may have.
    public static let maximumBytes = 256 * 1024

    /// The most inclusion proof lines a receipt may have (a tree of at most 2^63 leaves needs 63).
    public static let maximumProofLines = 63

    /// Parses `text` and proves it with the log's verifier key and, when given, the `witnesses`' policy (its
    /// quorum of valid cosignatures on the checkpoint): returns the receipt and the checkpoint. The checkpoint's
    /// origin must be the key's name, and when the policy lists logs, `logKey` must be one of them. Hashes are
    /// computed with the log key's ``NoteVerifier/crypto``.
    /// - Throws: ``Failure``.
    public static func verify(
        _ text: String,
        logKey: NoteVerifier,
        witnesses: WitnessPolicy? = nil
    ) throws(Failure)
        -> (LogReceipt, Checkpoint)
    {
        if let witnesses, !witnesses.acceptsLog(logKey) { throw .logNotInPolicy(logKey.verifierKey) }
        let parsed = try Self.parse(text)
        let body: String
        do {
            body = try logKey.open(parsed.note)
        } catch {
            throw .checkpoint(error)
        }
        return try Self.prove(parsed, body: body, logKey: logKey, witnesses: witnesses)
    }

    /// Parses `text` and proves it with `policy`: the checkpoint must be signed by one of the policy's logs (its
    /// origin being that key's name) and cosigned per its quorum.
    /// - Throws: ``Failure``; `.logNotInPolicy` when the policy lists no log.
    public static func verify(_ text: String, policy: WitnessPolicy) throws(Failure) -> (LogReceipt, Checkpoint) {
        guard !policy.logs.isEmpty else { throw .logNotInPolicy(nil) }
        let parsed = try Self.parse(text)
        let opened: NoteKeyring.Opened
        do {
            opened = try policy.logKeyring.open(parsed.note)
        } catch {
            throw .checkpoint(error)
        }
        guard let logKey = policy.logs.first(where: { $0.verifier.verifierKey == opened.verifierKey })?.verifier
        else { throw .logNotInPolicy(opened.verifierKey) }
        return try Self.prove(parsed, body: opened.body, logKey: logKey, witnesses: policy)
    }

    /// The receipt's lines before the note, and the note.
    private struct Parsed {
        var index: Int64
        var extra: [UInt8]
        var proof: [[UInt8]]
        var note: String
    }

    private static func parse(_ text: String) throws(Failure) -> Parsed {
        guard text.utf8.count <= Self.maximumBytes else { throw .malformed("larger than 256 KiB") }
        guard let split = text.range(of: "\n\n") else { throw .malformed("no empty line before the checkpoint") }
        let head = text[..<split.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        let note = String(text[split.upperBound...])
        guard head.count >= 3, head[0] == Self.header else { throw .malformed("the first line is not \(Self.header)") }
        guard head[1].hasPrefix("extra "), let extra = Data(base64Encoded: String(head[1].dropFirst(6))) else {
            throw .malformed("the second line is not `extra` and the event's bytes in base64")
        }
        let indexText = head[2].dropFirst(6)
        guard head[2].hasPrefix("index "), (1...18).contains(indexText.count), indexText.allSatisfy(\.isASCII),
            let index = Int64(indexText), String(index) == indexText
        else { throw .malformed("the third line is not `index N`") }
        var proof: [[UInt8]] = []
        for line in head.dropFirst(3) {
            guard proof.count < Self.maximumProofLines, let hash = Data(base64Encoded: String(line)), hash.count == 32
            else {
                throw .malformed(
                    "an inclusion proof line is not a base64 SHA-256 hash (at most \(Self.maximumProofLines) lines)"
                )
            }
            proof.append(Array(hash))
        }
        return Parsed(index: index, extra: Array(extra), proof: proof, note: note)
    }

    /// Checks `parsed`, whose note `logKey` opened to `body`: its origin, the inclusion proof and the quorum.
    private static func prove(
        _ parsed: Parsed,
        body: String,
        logKey: NoteVerifier,
        witnesses: WitnessPolicy?
    ) throws(Failure) -> (LogReceipt, Checkpoint) {
        guard let checkpoint = Checkpoint(body: body) else { throw .malformed("the note is not a checkpoint") }
        // A note signature does not cover the key's name: a key used for two origins would otherwise let one log's
        // checkpoints pass for the other's (tlog-checkpoint asks verifiers to check the origin).
        guard checkpoint.origin == logKey.name else {
            throw .wrongOrigin(checkpoint: checkpoint.origin, key: logKey.name)
        }
        let receipt = LogReceipt(
            position: parsed.index + 1,
            eventBytes: parsed.extra,
            proof: parsed.proof,
            note: parsed.note
        )
        let crypto = logKey.crypto
        let leaf = MerkleTree.leafHash(position: parsed.index + 1, digest: crypto.sha256(parsed.extra), crypto: crypto)
        guard
            InclusionProofCheck.holds(
                index: parsed.index,
                size: checkpoint.size,
                leafHash: leaf,
                root: checkpoint.root,
                proof: parsed.proof,
                crypto: crypto
            )
        else { throw .notIncluded }
        if let witnesses {
            guard let result = witnesses.check(note: parsed.note) else {
                throw .malformed("the note is not a signed note")
            }
            guard result.quorumMet else {
                throw .notWitnessed(cosigned: result.cosigned.map(\.name), invalid: result.invalid)
            }
        }
        return (receipt, checkpoint)
    }
}
