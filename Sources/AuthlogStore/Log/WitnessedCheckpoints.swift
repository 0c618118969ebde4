public import AuthlogPostgres
public import AuthlogTransparency
import Foundation

/// What a witness policy says of the stored checkpoints (`authlog verify --witness-policy`): the newest one
/// its quorum cosigned (the latest checkpoint under `quorum none`, which needs no cosignature), and every stored
/// cosignature of a policy witness that does not verify (which only tampering with
/// `authlog.checkpoint_cosignatures` makes: serve stores a line only once it verified).
public struct WitnessedCheckpoints: Sendable, Equatable {
    /// The newest checkpoint cosigned by the quorum: its size, when it was signed (seconds since 1970) and
    /// who cosigned it (nobody under `quorum none`).
    public var newest: (size: Int64, signedAt: Int64, witnesses: [String])?
    /// The latest checkpoint's size (0: none).
    public var latestSize: Int64
    /// Stored cosignatures that do not verify: the checkpoint's size and the witness.
    public var invalid: [(size: Int64, witness: String)]

    /// Whether both name the same newest checkpoint and witnesses, latest size and invalid cosignatures.
    public static func == (lhs: WitnessedCheckpoints, rhs: WitnessedCheckpoints) -> Bool {
        lhs.newest?.size == rhs.newest?.size && lhs.newest?.witnesses == rhs.newest?.witnesses
            && lhs.latestSize == rhs.latestSize && lhs.invalid.map(\.size) == rhs.invalid.map(\.size)
            && lhs.invalid.map(\.witness) == rhs.invalid.map(\.witness)
    }

    /// The most checkpoints read, newest first.
    public static let limit = 10_000

    /// Checks the newest ``limit`` checkpoints that carry cosignatures against `policy`.
    /// - Throws: ``StoreError`` from the database.
    public static func check(_ policy: WitnessPolicy, on connection: Connection) async throws -> WitnessedCheckpoints {
        let latest = try await CheckpointCosignatures.newestCheckpoint(on: connection)
        let rows = try await connection.query(
            """
            SELECT c.tree_size, c.note, extract(epoch FROM c.signed_at)::bigint,
                   string_agg(s.line, E'\\n' ORDER BY s.witness)
            FROM authlog.checkpoints c JOIN authlog.checkpoint_cosignatures s USING (tree_size)
            GROUP BY c.tree_size ORDER BY c.tree_size DESC LIMIT \(Self.limit)
            """
        )
        var result = WitnessedCheckpoints(newest: nil, latestSize: latest?.size ?? 0, invalid: [])
        // `quorum none`: the latest checkpoint is witnessed as it is; stored cosignatures are still checked below.
        if let latest, policy.quorum.isMet(by: []) { result.newest = (latest.size, latest.signedAt, []) }
        for row in rows.rows {
            let size = try row.decode(Int64.self, at: 0)
            let note = CosignedCheckpoint.appending(
                try row.decode(String.self, at: 3).split(separator: "\n").map(String.init),
                to: try row.decode(String.self, at: 1)
            )
            guard let check = policy.check(note: note) else { continue }
            result.invalid += check.invalid.map { (size, $0) }
            if result.newest == nil, check.quorumMet {
                result.newest = (size, try row.decode(Int64.self, at: 2), check.cosigned.map(\.name))
            }
        }
        return result
    }
}
