import AuthlogCore
public import AuthlogPostgres
public import AuthlogTransparency

/// The witnesses' cosignature lines of the log's checkpoints (`authlog.checkpoint_cosignatures`, migration
/// 0013): one line per (tree size, witness), each verified with the witness's key before it is stored.
public enum CheckpointCosignatures {
    /// One witness's latest stored cosignature.
    public struct Latest: Sendable, Equatable {
        /// The witness name.
        public var witness: String
        /// The size of the latest checkpoint it cosigned.
        public var treeSize: Int64
        /// The cosignature's timestamp (POSIX seconds).
        public var cosignedAt: Int64

        /// Creates an entry.
        public init(witness: String, treeSize: Int64, cosignedAt: Int64) {
            self.witness = witness
            self.treeSize = treeSize
            self.cosignedAt = cosignedAt
        }
    }

    /// Stores `line` (without its newline) as `witness`'s cosignature of the checkpoint of `treeSize`, made at
    /// `cosignedAt`; a second line for the same pair is ignored.
    /// - Throws: ``StoreError`` from the database.
    public static func store(
        treeSize: Int64,
        witness: String,
        line: String,
        cosignedAt: Int64,
        on connection: Connection
    ) async throws {
        try await connection.query(
            """
            INSERT INTO authlog.checkpoint_cosignatures (tree_size, witness, line, cosigned_at)
            VALUES (\(treeSize), \(witness), \(line), to_timestamp(\(cosignedAt)))
            ON CONFLICT (tree_size, witness) DO NOTHING
            """
        )
    }

    /// The cosignature lines of the checkpoint of `treeSize`, by witness name.
    /// - Throws: ``StoreError`` from the database.
    public static func lines(treeSize: Int64, on connection: Connection) async throws -> [String] {
        let rows = try await connection.query(
            "SELECT line FROM authlog.checkpoint_cosignatures WHERE tree_size = \(treeSize) ORDER BY witness"
        )
        return try rows.rows.map { try $0.decode(String.self, at: 0) }
    }

    /// The newest checkpoint (of the 100 newest that carry cosignatures) whose stored cosignatures meet
    /// `policy`'s quorum, and when it reached it: when the valid cosignature that completed the quorum was stored
    /// (`received_at`, POSIX seconds). Under `quorum none` it is the newest checkpoint, cosigned or not, reached
    /// when it was signed. What a restarted process reports as witnessed before any witness answers it.
    /// - Throws: ``StoreError`` from the database.
    public static func newestWitnessed(
        under policy: WitnessPolicy,
        on connection: Connection
    ) async throws -> (size: Int64, reachedAt: Int64)? {
        if policy.quorum.isMet(by: []) {
            return try await self.newestCheckpoint(on: connection).map { ($0.size, $0.signedAt) }
        }
        let checkpoints = try await connection.query(
            """
            SELECT c.tree_size, c.note FROM authlog.checkpoints c
            WHERE EXISTS (SELECT FROM authlog.checkpoint_cosignatures s WHERE s.tree_size = c.tree_size)
            ORDER BY c.tree_size DESC LIMIT 100
            """
        )
        var notes: [(size: Int64, note: String)] = []
        for row in checkpoints.rows {
            notes.append((try row.decode(Int64.self, at: 0), try row.decode(String.self, at: 1)))
        }
        guard !notes.isEmpty else { return nil }
        let rows = try await connection.query(
            """
            SELECT tree_size, witness, line, floor(extract(epoch FROM received_at))::bigint
            FROM authlog.checkpoint_cosignatures WHERE tree_size = ANY(\(ArrayLiteral(notes.map(\.size)))::bigint[])
            """
        )
        var lines: [Int64: [(witness: String, line: String, receivedAt: Int64)]] = [:]
        for row in rows.rows {
            lines[try row.decode(Int64.self, at: 0), default: []].append(
                (
                    try row.decode(String.self, at: 1), try row.decode(String.self, at: 2),
                    try row.decode(Int64.self, at: 3)
                )
            )
        }
        let names = Dictionary(
            policy.witnesses.map { ($0.verifier.name, $0.name) },
            uniquingKeysWith: { first, _ in first }
        )
        for (size, note) in notes {
            let stored = lines[size] ?? []
            guard let result = policy.check(note: CosignedCheckpoint.appending(stored.map(\.line), to: note)),
                result.quorumMet
            else { continue }
            let valid = Set(result.cosigned.map(\.name))
            // The quorum was reached when the cosignature that completed it was stored. Rows name a witness by its
            // key's name; the quorum by its name in the policy.
            var cosigners: Set<String> = []
            for entry in stored.sorted(by: { $0.receivedAt < $1.receivedAt }) {
                guard let name = names[entry.witness], valid.contains(name) else { continue }
                cosigners.insert(name)
                if policy.quorum.isMet(by: cosigners) { return (size, entry.receivedAt) }
            }
        }
        return nil
    }

    /// The newest stored checkpoint's size and when it was signed (POSIX seconds); nil before the first.
    /// - Throws: ``StoreError`` from the database.
    static func newestCheckpoint(on connection: Connection) async throws -> (size: Int64, signedAt: Int64)? {
        let rows = try await connection.query(
            """
            SELECT tree_size, floor(extract(epoch FROM signed_at))::bigint FROM authlog.checkpoints
            ORDER BY tree_size DESC LIMIT 1
            """
        )
        return try rows.first.map { (try $0.decode(Int64.self, at: 0), try $0.decode(Int64.self, at: 1)) }
    }

    /// Each witness's latest stored cosignature.
    /// - Throws: ``StoreError`` from the database.
    public static func latest(on connection: Connection) async throws -> [Latest] {
        let rows = try await connection.query(
            """
            SELECT DISTINCT ON (witness) witness, tree_size, extract(epoch FROM cosigned_at)::bigint
            FROM authlog.checkpoint_cosignatures ORDER BY witness, tree_size DESC
            """
        )
        return try rows.rows.map {
            Latest(
                witness: try $0.decode(String.self, at: 0),
                treeSize: try $0.decode(Int64.self, at: 1),
                cosignedAt: try $0.decode(Int64.self, at: 2)
            )
        }
    }
}

/// The latest checkpoint with the witnesses' cosignatures appended to its note as extra signature lines: what
/// `/v1/log/checkpoint` serves. A reader checks the log's signature with the log's key and the cosignatures with
/// a ``WitnessPolicy``; each ignores the other's lines (C2SP signed-note).
public enum CosignedCheckpoint {
    /// The latest checkpoint, cosigned as far as its witnesses have answered; nil before the first checkpoint.
    /// - Throws: ``StoreError`` from the database.
    public static func latest(on connection: Connection) async throws -> Checkpointer.Signed? {
        guard var signed = try await Checkpointer.stored(size: nil, on: connection) else { return nil }
        let lines = try await CheckpointCosignatures.lines(treeSize: signed.size, on: connection)
        signed.note = self.appending(lines, to: signed.note)
        return signed
    }

    /// `note` with the signature `lines` (without newlines) appended.
    public static func appending(_ lines: [String], to note: String) -> String {
        note + lines.map { $0 + "\n" }.joined()
    }
}
