import AuthlogCore
import AuthlogCrypto
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Signs checkpoints of the sealed log: seals what is pending, signs the head as a C2SP checkpoint note,
/// keeps the note in `authlog.checkpoints` (one per tree size, whoever signs first), writes it into a
/// directory outside the database, and records `audit.checkpoint_signed`.
public struct Checkpointer: Sendable {
    /// A checkpoint as stored.
    public struct Signed: Sendable, Equatable {
        /// The tree size.
        public var size: Int64
        /// The root hash.
        public var root: [UInt8]
        /// The signed note.
        public var note: String
        /// Whether this call signed it (false: one at this size existed).
        public var isNew: Bool
    }

    private let store: EventStore
    private let signer: NoteSigner
    private let directory: String?

    /// A checkpointer signing with `signer` (whose name is the log's origin) and writing notes into
    /// `directory` when given.
    public init(store: EventStore, signer: NoteSigner, directory: String?) {
        self.store = store
        self.signer = signer
        self.directory = directory
    }

    /// The verifier of the signing key.
    public var verifier: NoteVerifier { self.signer.verifier }

    /// Seals what is pending and signs the head, unless a checkpoint of that size exists (then returns it).
    /// - Throws: ``StoreError`` from the database, or `.server` when the note cannot be signed or written.
    @discardableResult
    public func signNow(requestID: String? = nil) async throws -> Signed {
        try await self.store.sealPending()
        let head = try await self.store.pool.withConnection { try await EventReader().head(on: $0) }
        let note: String
        do {
            note = try self.signer.sign(Checkpoint(origin: self.signer.name, size: head.size, root: head.root).body)
        } catch {
            throw StoreError(.server, "cannot sign the checkpoint: \(error)")
        }
        // The note is written outside before it is stored, so that whoever sees it served (GET
        // /v1/log/checkpoint reads the table) finds the file too. Ed25519 signatures are deterministic: another
        // signer of the same tree size with the same key writes the same bytes.
        try self.write(note, size: head.size)
        let inserted = try await self.store.pool.withConnection { connection in
            try await connection.query(
                """
                INSERT INTO authlog.checkpoints (tree_size, root, key_name, note, signed_at)
                VALUES (\(head.size), \(ByteaValue(head.root)), \(self.signer.name), \(note), clock_timestamp())
                ON CONFLICT (tree_size) DO NOTHING RETURNING tree_size
                """
            )
        }
        guard !inserted.rows.isEmpty else {
            let existing = try await self.store.pool.withConnection { try await Self.stored(size: head.size, on: $0) }
            guard let existing else {
                throw StoreError(.server, "the checkpoint at \(head.size) vanished")
            }
            return existing
        }
        let event = try EventEnvelope(
            AuditCheckpointSigned(
                treeSize: head.size,
                rootHash: Data(head.root).base64EncodedString(),
                keyName: self.signer.name,
                keyHash: Hex.encode(self.signer.verifier.keyHash)
            ),
            stream: StreamName(category: "audit", id: "checkpoints"),
            requestID: requestID
        )
        try await self.store.append(event)
        return Signed(size: head.size, root: head.root, note: note, isNew: true)
    }

    /// The latest stored checkpoint, if any.
    /// - Throws: ``StoreError`` from the database.
    public static func latest(pool: ConnectionPool) async throws -> Signed? {
        try await pool.withConnection { try await self.stored(size: nil, on: $0) }
    }

    /// The stored checkpoint of `size` (the latest when nil).
    /// - Throws: ``StoreError`` from the database.
    public static func stored(size: Int64?, on connection: Connection) async throws -> Signed? {
        let rows =
            if let size {
                try await connection.query(
                    "SELECT tree_size, root, note FROM authlog.checkpoints WHERE tree_size = \(size)"
                )
            } else {
                try await connection.query(
                    "SELECT tree_size, root, note FROM authlog.checkpoints ORDER BY tree_size DESC LIMIT 1"
                )
            }
        guard let row = rows.first else { return nil }
        return Signed(
            size: try row.decode(Int64.self, at: 0),
            root: try row.decode(ByteaValue.self, at: 1).bytes,
            note: try row.decode(String.self, at: 2),
            isNew: false
        )
    }

    /// Writes the note as `checkpoint-<size>.note` and replaces `latest.note`, each through a temporary file
    /// and a rename so a reader never sees half a note.
    private func write(_ note: String, size: Int64) throws {
        guard let directory = self.directory else { return }
        let manager = FileManager.default
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for name in ["checkpoint-\(size).note", "latest.note"] {
                let temporary = "\(directory)/.\(name).\(UUID().uuidString)"
                try Data(note.utf8).write(to: URL(fileURLWithPath: temporary))
                // rename(2) replaces the old note atomically.
                guard rename(temporary, "\(directory)/\(name)") == 0 else {
                    let reason = String(cString: strerror(errno))
                    try? manager.removeItem(atPath: temporary)
                    throw StoreError(.server, "cannot rename \(temporary): \(reason)")
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.server, "cannot write the checkpoint into \(directory): \(error.localizedDescription)")
        }
    }
}
