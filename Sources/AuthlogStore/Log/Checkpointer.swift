import AuthlogCore
import AuthlogCrypto
public import AuthlogPostgres
public import AuthlogTransparency
import Foundation

/// Signs checkpoints of the sealed log, and never signs one that contradicts a checkpoint it signed before.
///
/// The last checkpoint the signer signed is kept outside the database (``SignerState``). Before it signs a new
/// head it proves, from the database's own stored nodes, that the head extends that checkpoint (an RFC 9162
/// consistency proof), that the stored nodes give the head's root, and that the last stored leaf is the hash
/// of its event. A smaller log (a rollback), the same size with another root (a fork), a tree that does not
/// contain the last one (a rewrite), or a store that contradicts its own head are refused: recorded once as
/// `audit.checkpoint_refused` and thrown as ``CheckpointRefusal``. A newer checkpoint that a sibling process
/// signed with the same key (or one of `previousKeys`) is adopted only once it is proved consistent with the
/// state. An existing `checkpoint-<size>.note` is never overwritten.
///
/// After a key rotation the state and the stored checkpoints were signed by the key it replaced: given among
/// `previousKeys`, they are held to exactly as before, and the next checkpoint, signed by the new key, must
/// extend them.
///
/// A checkpoint is kept in `authlog.checkpoints` (one per tree size), written into the directory outside the
/// database, and recorded as `audit.checkpoint_signed`.
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

    private let store: PostgresEventStore
    private let signer: NoteSigner
    private let keyring: NoteKeyring
    private let directory: String?
    private let state: SignerState?

    /// A checkpointer signing with `signer` (whose name is the log's origin), writing notes into `directory`
    /// when given, and keeping its state in `statePath` (default: `latest.note` in `directory`; without
    /// either, the signer keeps no state outside the database and trusts its latest stored checkpoint). The
    /// state and stored checkpoints may also be signed by one of `previousKeys` (the keys `signer`'s replaced).
    /// What it refuses is noted in the store's ``PostgresEventStore/integrity``.
    public init(
        store: PostgresEventStore,
        signer: NoteSigner,
        previousKeys: [NoteVerifier] = [],
        directory: String?,
        statePath: String? = nil
    ) {
        self.store = store
        self.signer = signer
        self.keyring = NoteKeyring([signer.verifier] + previousKeys)
        self.directory = directory
        self.state = (statePath ?? directory.map { "\($0)/latest.note" }).map(SignerState.init(path:))
    }

    /// The verifier of the signing key.
    public var verifier: NoteVerifier { self.signer.verifier }

    /// Where the signer keeps its state, if anywhere.
    public var statePath: String? { self.state?.path }

    /// Seals what is pending and signs the head, unless a checkpoint of that size exists (then returns it).
    /// - Throws: ``CheckpointRefusal`` when the head contradicts the last checkpoint signed (recorded first);
    ///   ``StoreError`` from the database, or `.server` when the note cannot be signed or written.
    @discardableResult
    public func signNow(requestID: String? = nil) async throws -> Signed {
        try await self.store.sealPending()
        do {
            let signed = try await self.store.pool.withConnection { try await self.sign(on: $0, requestID: requestID) }
            self.store.integrity.signed(size: signed.size)
            if signed.isNew {
                try await self.store.append(self.signedEvent(signed, requestID: requestID))
            }
            return signed
        } catch let refusal as CheckpointRefusal {
            self.store.integrity.refused(refusal)
            try await self.record(refusal, requestID: requestID)
            throw refusal
        }
    }

    private func sign(on connection: Connection, requestID: String?) async throws -> Signed {
        let head = try await EventReader().head(on: connection)
        var last = try self.lastSigned(head: head)
        let stored = try await Self.stored(size: nil, on: connection)
        if let stored {
            last = try await self.reconciled(last, with: stored, head: head, on: connection)
        }
        let previous = last ?? Checkpoint(origin: self.signer.name, size: 0, root: MerkleTree.emptyRoot)
        if head.size < previous.size {
            throw self.refusal(
                .rollback,
                head,
                previous,
                "the log has \(head.size) events but this signer already signed a checkpoint of \(previous.size)"
            )
        }
        if head.size == previous.size, last != nil {
            guard head.root == previous.root else {
                throw self.refusal(
                    .fork,
                    head,
                    previous,
                    "the log has \(head.size) events, as signed, but another root"
                )
            }
            if let stored, stored.size == head.size { return stored }
        }
        try await self.requireExtension(
            from: previous,
            to: head.size,
            root: head.root,
            what: "the log's head",
            head: head,
            on: connection
        )
        try await self.requireLastLeaf(of: head, previous: previous, on: connection)
        try await self.requireAuthenticEvents(after: previous, head: head, on: connection)
        return try await self.store(head, previous: previous, on: connection)
    }

    /// The last checkpoint signed, after the newest stored one is checked against it and the head: a stored
    /// checkpoint beyond the head is a rollback, one of the last's size with another root a fork, and a larger
    /// one (a sibling signer's) is adopted, into the state too, once proved to extend the last.
    private func reconciled(
        _ last: Checkpoint?,
        with stored: Signed,
        head: LogHead,
        on connection: Connection
    ) async throws -> Checkpoint? {
        var last = last
        let checkpoint = try self.opened(stored.note, "the stored checkpoint at \(stored.size)", head, last)
        if checkpoint.size > head.size {
            throw self.refusal(
                .rollback,
                head,
                last ?? checkpoint,
                "the log has \(head.size) events but a checkpoint of \(checkpoint.size) is stored"
            )
        }
        if let known = last {
            if checkpoint.size > known.size {
                try await self.requireExtension(
                    from: known,
                    to: checkpoint.size,
                    root: checkpoint.root,
                    what: "the checkpoint at \(checkpoint.size) that another signer stored",
                    head: head,
                    on: connection
                )
                try self.state?.write(stored.note)
                last = checkpoint
            } else if checkpoint.size == known.size, checkpoint.root != known.root {
                throw self.refusal(
                    .fork,
                    head,
                    known,
                    "the database holds a checkpoint of \(known.size) events with another root than the one "
                        + "this signer signed"
                )
            }
        } else {
            last = checkpoint
        }
        return last
    }

    /// Signs `head`, writes the note outside (never over another note of its size), moves the state, and
    /// stores it (or returns the one stored at that size by a sibling, if it is the same).
    private func store(
        _ head: LogHead,
        previous: Checkpoint,
        on connection: Connection
    ) async throws
        -> Signed
    {
        let note: String
        do {
            note = try self.signer.sign(Checkpoint(origin: self.signer.name, size: head.size, root: head.root).body)
        } catch {
            throw StoreError(.server, "cannot sign the checkpoint: \(error)")
        }
        // The note is written outside before it is stored, so that whoever sees it served (GET
        // /v1/log/checkpoint reads the table) finds the file too. Ed25519 signatures are deterministic: another
        // signer of the same tree with the same key writes the same bytes.
        if let directory = self.directory {
            let path = "\(directory)/checkpoint-\(head.size).note"
            if let existing = try NoteFiles.createOnce(path, with: note), existing != note {
                throw self.refusal(
                    .fork,
                    head,
                    previous,
                    "\(path) already holds another checkpoint of \(head.size) events; it is not overwritten"
                )
            }
        }
        try self.state?.write(note)
        if let directory = self.directory, self.state?.path != "\(directory)/latest.note" {
            try NoteFiles.replace("\(directory)/latest.note", with: note)
        }
        let inserted = try await connection.query(
            """
            INSERT INTO authlog.checkpoints (tree_size, root, key_name, note, signed_at)
            VALUES (\(head.size), \(ByteaValue(head.root)), \(self.signer.name), \(note), clock_timestamp())
            ON CONFLICT (tree_size) DO NOTHING RETURNING tree_size
            """
        )
        guard inserted.rows.isEmpty else { return Signed(size: head.size, root: head.root, note: note, isNew: true) }
        guard let existing = try await Self.stored(size: head.size, on: connection) else {
            throw StoreError(.server, "the checkpoint at \(head.size) vanished")
        }
        guard existing.root == head.root else {
            throw self.refusal(.fork, head, previous, "the database holds another checkpoint of \(head.size) events")
        }
        return existing
    }

    /// The last checkpoint this signer signed, from its state (nil: no state yet).
    private func lastSigned(head: LogHead) throws -> Checkpoint? {
        guard let state = self.state, let note = try state.read() else { return nil }
        let empty = Checkpoint(origin: self.signer.name, size: 0, root: MerkleTree.emptyRoot)
        return try self.opened(note, "the signer state \(state.path)", head, empty)
    }

    /// The checkpoint of a note this signer must have signed.
    private func opened(
        _ note: String,
        _ what: String,
        _ head: LogHead,
        _ last: Checkpoint?
    ) throws
        -> Checkpoint
    {
        let previous = last ?? Checkpoint(origin: self.signer.name, size: 0, root: MerkleTree.emptyRoot)
        do {
            let body = try self.keyring.open(note).body
            guard let checkpoint = Checkpoint(body: body), checkpoint.origin == self.signer.name else {
                throw StoreError(.server, "\(what) is not a checkpoint of \(self.signer.name)")
            }
            return checkpoint
        } catch let failure as NoteVerifier.Failure {
            if case .malformed = failure { throw StoreError(.server, "\(what): \(failure)") }
            throw self.refusal(.otherKey, head, previous, "\(what) is not signed by this signer's keys: \(failure)")
        }
    }

    /// Proves from the stored nodes that the tree of `size` leaves with `root` extends `previous`.
    private func requireExtension(
        from previous: Checkpoint,
        to size: Int64,
        root: [UInt8],
        what: String,
        head: LogHead,
        on connection: Connection
    ) async throws {
        guard previous.size > 0, size > previous.size else { return }
        let proof: LogProofs.Consistency
        do {
            proof = try await LogProofs.consistency(from: previous.size, to: size, on: connection)
        } catch let error as StoreError where error.code == .dropped || error.code == .schema {
            throw self.refusal(
                error.code == .dropped ? .inconsistent : .brokenStore,
                head,
                previous,
                "cannot prove that \(what) extends the checkpoint of \(previous.size): \(error.message)"
            )
        }
        if proof.toRoot != root {
            throw self.refusal(
                .brokenStore,
                head,
                previous,
                "the stored nodes give the tree of \(size) events another root than \(what)"
            )
        }
        do {
            try ConsistencyVerifier.verify(
                oldSize: previous.size,
                oldRoot: previous.root,
                newSize: size,
                newRoot: root,
                proof: proof.hashes
            )
        } catch {
            throw self.refusal(
                .inconsistent,
                head,
                previous,
                "\(what) (\(size) events) does not extend the checkpoint of \(previous.size): its first "
                    + "\(previous.size) events no longer have the signed root"
            )
        }
    }

    /// The last stored leaf is the hash of its event, and the head's frontier is the stored nodes'.
    private func requireLastLeaf(
        of head: LogHead,
        previous: Checkpoint,
        on connection: Connection
    )
        async throws
    {
        guard head.size > 0 else { return }
        let rows = try await connection.query(
            """
            SELECT l.leaf_hash, r.digest FROM authlog.log_leaves l
            JOIN authlog.event_records r ON r.event_id = l.event_id AND r.log_month = l.log_month
            WHERE l.position = \(head.size)
            """
        )
        guard let row = rows.first,
            try row.decode(ByteaValue.self, at: 0).bytes
                == MerkleTree.leafHash(position: head.size, digest: try row.decode(ByteaValue.self, at: 1).bytes)
        else {
            throw self.refusal(
                .brokenStore,
                head,
                previous,
                "the last stored leaf (\(head.size)) is missing or is not the hash of its event"
            )
        }
        let root = try await LogProofs.root(size: head.size, on: connection)
        if root != head.root {
            throw self.refusal(
                .brokenStore,
                head,
                previous,
                "the stored nodes give the tree of \(head.size) events another root than the log's head"
            )
        }
    }

    /// Every event the head adds is what its writer queued: its leaf is the hash of its stored digest and, with
    /// the event key, a MAC present verifies over that digest, and one is present on every event after the
    /// position from which this signer requires MACs (``SignerState/macsRequiredAfter()``, outside the database:
    /// a database owner cannot switch it off by stripping MACs). The tree commits to the digests, so an event
    /// whose contents were edited without its digest is `verify`'s to name, not a forgery the signer would sign.
    private func requireAuthenticEvents(
        after previous: Checkpoint,
        head: LogHead,
        on connection: Connection
    )
        async throws
    {
        let key = self.store.authenticator
        let required = key == nil ? nil : try self.state?.macsRequiredAfter()
        var position = previous.size
        while position < head.size {
            let rows = try await connection.query(
                """
                SELECT l.position, l.leaf_hash, r.digest, r.mac
                FROM authlog.log_leaves l
                JOIN authlog.event_records r ON r.event_id = l.event_id AND r.log_month = l.log_month
                WHERE l.position > \(position) AND l.position <= \(head.size) ORDER BY l.position LIMIT 5000
                """
            )
            guard !rows.rows.isEmpty else { break }
            for row in rows.rows {
                let next = try row.decode(Int64.self, at: 0)
                let digest = try row.decode(ByteaValue.self, at: 2).bytes
                let mac = try row.decode(ByteaValue?.self, at: 3)?.bytes
                var problem: String?
                if next != position + 1 {
                    problem = "event \(position + 1) is missing"
                } else if try row.decode(ByteaValue.self, at: 1).bytes
                    != MerkleTree.leafHash(position: next, digest: digest)
                {
                    problem = "event \(next)'s leaf is not the hash of its digest"
                } else if let key, let mac, !key.isValid(mac, for: digest) {
                    problem = "event \(next)'s MAC does not verify under the event key"
                } else if key != nil, mac == nil, let required, next > required {
                    problem = "event \(next) has no MAC, though this signer requires one after \(required)"
                }
                if let problem { throw self.refusal(.forged, head, previous, problem) }
                position = next
            }
        }
        if key != nil, required == nil { try self.state?.requireMACs(after: head.size) }
    }

    private func refusal(
        _ reason: AuditCheckpointRefused.Reason,
        _ head: LogHead,
        _ last: Checkpoint,
        _ detail: String
    ) -> CheckpointRefusal {
        CheckpointRefusal(reason: reason, treeSize: head.size, root: head.root, lastSigned: last, detail: detail)
    }

    /// Records `refusal`, unless the latest refusal recorded is the same contradiction of the same checkpoint
    /// (the scheduler asks every second: one event per contradiction, not one per second).
    private func record(_ refusal: CheckpointRefusal, requestID: String?) async throws {
        let lastRoot = Data(refusal.lastSigned.root).base64EncodedString()
        let latest = try await self.store.pool.withConnection { connection in
            try await connection.query(
                """
                SELECT reason, data->>'last_signed_size', data->>'last_signed_root' FROM authlog.event_records
                WHERE type = 'audit.checkpoint_refused' ORDER BY occurred_at DESC LIMIT 1
                """
            )
        }
        if let row = latest.first, try row.decode(String?.self, at: 0) == refusal.reason.rawValue,
            try row.decode(String?.self, at: 1) == String(refusal.lastSigned.size),
            try row.decode(String?.self, at: 2) == lastRoot
        {
            return
        }
        let event = try EventEnvelope(
            AuditCheckpointRefused(
                treeSize: refusal.treeSize,
                rootHash: Data(refusal.root).base64EncodedString(),
                lastSignedSize: refusal.lastSigned.size,
                lastSignedRoot: lastRoot,
                detail: refusal.detail
            ),
            stream: StreamName(category: "audit", id: "checkpoints"),
            reason: refusal.reason.rawValue,
            requestID: requestID
        )
        try await self.store.append(event)
    }

    private func signedEvent(_ signed: Signed, requestID: String?) throws -> EventEnvelope {
        try EventEnvelope(
            AuditCheckpointSigned(
                treeSize: signed.size,
                rootHash: Data(signed.root).base64EncodedString(),
                keyName: self.signer.name,
                keyHash: Hex.encode(self.signer.verifier.keyHash)
            ),
            stream: StreamName(category: "audit", id: "checkpoints"),
            requestID: requestID
        )
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
}
