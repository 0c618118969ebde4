import Foundation

/// The answer of `GET /v1/log/proof/consistency?from=M&to=N` (`{"from", "to", "from_root_hash",
/// "to_root_hash", "proof": [base64 hashes]}`): only the proof is used; the roots are the notes' own.
enum ConsistencyAnswer {
    /// The proof's hashes in `data`, the answer for `from` and `to`.
    /// - Throws: ``MonitorError`` for a body over `limit`, JSON not of the shape, sizes other than those
    ///   asked, or a proof hash that is not 32 bytes of base64 (at most
    ///   ``ReceiptsAnswer/maximumConsistencyHashes``).
    static func proof(_ data: Data, from: Int64, to: Int64, limit: Int) throws(MonitorError) -> [[UInt8]] {
        let wire = try AnswerJSON.decode(Wire.self, from: data, limit: limit)
        guard wire.from == from, wire.to == to else {
            throw .malformedAnswer("the proof is for \(wire.from)…\(wire.to), not \(from)…\(to)")
        }
        guard wire.proof.count <= ReceiptsAnswer.maximumConsistencyHashes else {
            throw .badProof(field: "proof", detail: "more than \(ReceiptsAnswer.maximumConsistencyHashes) hashes")
        }
        var hashes: [[UInt8]] = []
        for line in wire.proof {
            guard line.utf8.count <= 64, let hash = Data(base64Encoded: line) else { throw .badBase64(field: "proof") }
            guard hash.count == 32 else { throw .badProof(field: "proof", detail: "a hash is not 32 bytes") }
            hashes.append(Array(hash))
        }
        return hashes
    }

    private struct Wire: Decodable {
        let from: Int64
        let to: Int64
        let proof: [String]
    }
}
