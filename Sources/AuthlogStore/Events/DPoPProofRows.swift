import AuthlogCore
import AuthlogPostgres

/// The writer's statements for the DPoP proofs its commands record (`AppendCommand.dpopProof`) in
/// `authlog.dpop_proofs`, the table the ledger (``DPoPProofStore``) records the other proofs in: which are
/// recorded already (in the batch's opening round trip), and the rows of the placed commands (before COMMIT).
enum DPoPProofRows {
    /// The hashes among `proofs` that are recorded already: one probe of the primary key each.
    static func lookup(_ proofs: [DPoPProofClaim]) -> SQLQuery {
        """
        SELECT p.proof_hash FROM unnest(\(Self.hashes(of: proofs))::bytea[]) AS h(hash)
        CROSS JOIN LATERAL (SELECT d.proof_hash FROM authlog.dpop_proofs d WHERE d.proof_hash = h.hash) p
        """
    }

    /// The hashes the lookup found.
    /// - Throws: ``StoreError`` `.decoding`.
    static func decodeLookup(_ result: QueryResult) throws -> Set<[UInt8]> {
        Set(try result.rows.map { try $0.decode(ByteaValue.self, at: 0).bytes })
    }

    /// The placed commands' proofs, in one statement; none when there are none. A proof another batch recorded
    /// since the lookup (committed, or committing: the insert waits for it) is skipped by `ON CONFLICT`, and
    /// `authlog.require_all_inserted` raises SQLSTATE `AL409` (``EventRow/lostRaceState``): the transaction rolls
    /// back and the batch is planned again, when the lookup finds that proof and its command fails alone.
    static func inserts(_ proofs: [DPoPProofClaim]) -> [SQLQuery] {
        guard !proofs.isEmpty else { return [] }
        var query: SQLQuery =
            "WITH recorded AS (INSERT INTO authlog.dpop_proofs (proof_hash, expires_at) SELECT * FROM unnest("
        let hashes = query.bind(Self.hashes(of: proofs))
        let expiries = query.bind(ArrayLiteral(proofs.map(\.expiresAt)))
        query.append(unescaped: "\(hashes)::bytea[], \(expiries)::timestamptz[])")
        query.append(unescaped: " ON CONFLICT (proof_hash) DO NOTHING RETURNING 1)")
        let expected = query.bind(Int64(proofs.count))
        query.append(unescaped: " SELECT authlog.require_all_inserted(count(*), \(expected)::bigint) FROM recorded")
        return [query]
    }

    /// The proofs' hashes as a `bytea[]` parameter.
    private static func hashes(of proofs: [DPoPProofClaim]) -> ArrayLiteral {
        ArrayLiteral(proofs.map { ByteaValue($0.proofHash).sqlText })
    }
}
