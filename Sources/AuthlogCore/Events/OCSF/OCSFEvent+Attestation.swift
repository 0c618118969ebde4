import Foundation

extension OCSFEvent {
    /// The canonical serialization the fingerprint covers: authlog's canonical event bytes (docs/events.md,
    /// "Canonical bytes and the digest"), rebuilt from the export-format event under `unmapped`.
    public static let serialization = "authlog.event.v2"

    /// The record integrity profile's attestation (ocsf-schema PR #1661; not in OCSF 1.8.0, so the line carries it
    /// as `unmapped.attestation_list`): the event's digest as `fingerprint`, its leaf hash as `uid`, the log's
    /// origin as `chain_uid`, the event before it as `prev_event`, and, once a checkpoint covers it, the log's key
    /// as `authority_uid` and one signature per signature line of that checkpoint's note (the log's, then each
    /// witness's cosignature).
    static func attestation(of event: JSONValue, evidence: OCSFRecordEvidence) -> JSONValue {
        var members: [(name: String, value: JSONValue)] = []
        if let leaf = event["leaf_hash"]?.stringValue { members.append(("uid", .string(leaf))) }
        if let origin = evidence.origin { members.append(("chain_uid", .string(origin))) }
        if let digest = event["digest"]?.stringValue {
            members.append(("fingerprint", self.fingerprint(digest)))
        }
        if let previous = evidence.previous {
            var link: [(name: String, value: JSONValue)] = [("uid", .string(previous.eventID))]
            if let typeUID = previous.typeUID { link.append(("type_uid", .integer(typeUID))) }
            if let digest = previous.digest {
                link.append(("fingerprint", self.fingerprint(digest)))
            }
            members.append(("prev_event", .object(link)))
        }
        if let checkpoint = evidence.checkpoint {
            let signatures = NoteSignatureLine.parse(checkpoint.note)
            if let log = signatures.first(where: { !$0.isCosignature }) {
                members.append(("authority_uid", .string(log.keyID)))
            }
            members.append(("signatures", .array(signatures.map(\.ocsf))))
        }
        return .object(members)
    }

    /// `unmapped.proof`: what a SIEM checks the event with offline: the checkpoint's note, the tree size and the
    /// inclusion proof (standard base64, bottom up); or, while no checkpoint covers the event, `pending` and the
    /// paths to fetch them from (add `&tree_size=` the checkpoint's size to the proof's).
    static func proof(of event: JSONValue, evidence: OCSFRecordEvidence) -> JSONValue {
        let position = event["position"]?.integerValue ?? 0
        guard let checkpoint = evidence.checkpoint else {
            return .object([
                ("status", .string("pending")),
                ("checkpoint_path", .string("/v1/log/checkpoint")),
                ("inclusion_proof_path", .string("/v1/log/proof/inclusion?position=\(position)")),
            ])
        }
        return .object([
            ("status", .string("checkpointed")),
            ("tree_size", .number(String(checkpoint.size))),
            ("leaf_index", .number(String(position - 1))),
            ("inclusion_proof", .array(checkpoint.proof.map { .string(Data($0).base64EncodedString()) })),
            ("checkpoint", .string(checkpoint.note)),
        ])
    }

    /// A SHA-256 `fingerprint` (`algorithm_id` 3) of authlog's canonical event bytes (`serialization_id` 99,
    /// Other: ``serialization``), in lowercase hex (`encoding_id` 1).
    private static func fingerprint(_ hex: String) -> JSONValue {
        .object([
            ("algorithm_id", .integer(3)), ("algorithm", .string("SHA-256")), ("value", .string(hex)),
            ("encoding_id", .integer(1)), ("encoding", .string("Hex")),
            ("serialization_id", .integer(99)), ("serialization", .string(Self.serialization)),
        ])
    }
}

/// One signature line of a C2SP signed note: `— <key name> <base64(4-byte key hash ‖ signature)>`, where a
/// tlog-cosignature/v1 line's signature is an 8-byte timestamp then the Ed25519 signature.
struct NoteSignatureLine {
    /// `name+<hex key hash>`, the key's id as C2SP notes name it.
    let keyID: String
    /// Whether this is a witness's cosignature (76 bytes after base64), with its time.
    let cosignedAt: Int64?

    var isCosignature: Bool { self.cosignedAt != nil }

    /// The line as an OCSF `digital_signature`: Ed25519 (`algorithm_id` 99, Other), over a checkpoint note
    /// (`serialization` `c2sp.org/tlog-checkpoint`) or a witness's cosigned statement
    /// (`c2sp.org/tlog-cosignature`, with its time as `created_time`).
    var ocsf: JSONValue {
        var members: [(name: String, value: JSONValue)] = [
            ("algorithm_id", .integer(99)), ("algorithm", .string("Ed25519")), ("serialization_id", .integer(99)),
            ("serialization", .string(self.isCosignature ? "c2sp.org/tlog-cosignature" : "c2sp.org/tlog-checkpoint")),
        ]
        if let time = self.cosignedAt {
            members.append(("created_time", .number(String(time * 1000))))
        }
        return .object(members)
    }

    /// The signature lines of `note` (after its first empty line), in order; lines that are not signatures are
    /// skipped.
    static func parse(_ note: String) -> [NoteSignatureLine] {
        let lines = note.split(separator: "\n", omittingEmptySubsequences: false)
        guard let blank = lines.firstIndex(where: \.isEmpty) else { return [] }
        return lines[(blank + 1)...].compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "\u{2014}", let bytes = Data(base64Encoded: String(parts[2])),
                bytes.count == 68 || bytes.count == 76
            else { return nil }
            let keyHash = Hex.encode(Array(bytes.prefix(4)))
            var cosignedAt: Int64?
            if bytes.count == 76 {
                cosignedAt = bytes.dropFirst(4).prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
            }
            return NoteSignatureLine(keyID: "\(parts[1])+\(keyHash)", cosignedAt: cosignedAt)
        }
    }
}
