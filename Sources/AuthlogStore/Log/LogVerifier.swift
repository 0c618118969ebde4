import AuthlogCore
import AuthlogCrypto
public import AuthlogPostgres
public import AuthlogTransparency
import Foundation

/// Recomputes the log from the events and checks everything stored against it: each event's digest from its
/// contents, each leaf hash, the interior nodes kept with each leaf, the head, every signed checkpoint (its
/// signature when a key is given, and its root against the recomputed tree at its size), and every root the
/// log recorded about itself in its `audit.checkpoint_signed` events. Given checkpoints kept outside the
/// database, it proves that the log still extends each.
///
/// Caught, with the first bad position: an edited event (digest), an edited leaf or node, a deleted event (a
/// gap), an inserted one (beyond the head), a committed event that was neither sealed nor queued, a rollback
/// (a checkpoint beyond the end), a fork (two checkpoints or recorded roots of one size with different roots)
/// and a rewrite with recomputed hashes (the root at a pinned size differs: the smallest range of positions
/// between the last pin that matched and the first that did not; when the pin that differs is a note kept outside,
/// only outside notes bound the range from below, since a database owner who holds the key may have signed the
/// rewritten stored checkpoints again; with the event key, the rewritten event whose MAC fails is named too).
/// Notes are checked with a keyring (the
/// current checkpoint key and the ones it replaced), and each key is named with the notes it signed; a note
/// that none of them signed is not tampering: it is reported as ``Report/otherKey(_:)`` ("unknown key") when
/// nothing else is wrong.
public struct LogVerifier: Sendable {
    /// What the walk found.
    public enum Report: Sendable, Equatable {
        /// Every event checked out; `events` were checked, the root is the recomputed one, `checkpoints`
        /// signed checkpoints (the outside ones included) matched, and so did `recordedRoots` roots recorded by
        /// the log's own `audit.checkpoint_signed` events. `unauthenticated` events carry no MAC (all of them
        /// before the first that does: written before the event key); `macsUnchecked` is true when events carry
        /// MACs but no event key was given to check them. `droppedThrough` is the last position retention
        /// dropped (0: none): the walk began after it, from the anchor its sealed `audit.retention_applied`
        /// records.
        case intact(
            events: Int64,
            root: [UInt8],
            checkpoints: Int,
            recordedRoots: Int = 0,
            unauthenticated: Int64 = 0,
            macsUnchecked: Bool = false,
            signedBy: [KeyTally] = [],
            droppedThrough: Int64 = 0
        )
        /// The first bad position, and why.
        case broken(position: Int64, reason: String)
        /// Two checkpoints or recorded roots of one size disagree: the log was forked.
        case fork(size: Int64, reason: String)
        /// The events and tree are intact, but some notes are signed by no key of the keyring (an unknown key;
        /// they are not counted).
        case otherKey(String)
    }

    /// The notes one key of the keyring signed.
    public struct KeyTally: Sendable, Equatable {
        /// The key, as `<name>+<hex key hash>`.
        public var keyID: String
        /// How many checkpoints stored in the database it signed.
        public var stored: Int
        /// The outside notes it signed, by their sources.
        public var outside: [String]

        /// A tally of `keyID`.
        public init(keyID: String, stored: Int, outside: [String] = []) {
            self.keyID = keyID
            self.stored = stored
            self.outside = outside
        }
    }

    /// Events read per query.
    public var pageSize: Int
    /// The keys that signed the checkpoints; without them signatures are not checked (roots still are).
    public var keys: NoteKeyring?
    /// The event key; without it the events' MACs are not checked (an event without a MAC after one with is
    /// still caught).
    public var eventKey: EventAuthenticator?

    /// Creates a verifier reading `pageSize` events per query, checking signatures with `key` alone.
    public init(pageSize: Int = 5000, key: NoteVerifier? = nil, eventKey: EventAuthenticator? = nil) {
        self.init(pageSize: pageSize, keys: key.map { NoteKeyring([$0]) }, eventKey: eventKey)
    }

    /// Creates a verifier reading `pageSize` events per query, checking signatures with the keyring `keys`.
    public init(pageSize: Int = 5000, keys: NoteKeyring?, eventKey: EventAuthenticator? = nil) {
        self.pageSize = pageSize
        self.keys = keys.flatMap { $0.keys.isEmpty ? nil : $0 }
        self.eventKey = eventKey
    }

    /// A signed checkpoint note kept outside the database.
    public struct OutsideNote: Sendable {
        /// How reports name it, such as `the outside checkpoint` or a file's path.
        public var source: String
        /// The note.
        public var note: String
        /// Whether a note older than the retained log fails verification (the one note an auditor asked to
        /// prove); otherwise such a note is passed over.
        public var isRequired: Bool

        /// Creates an outside note.
        public init(source: String, note: String, isRequired: Bool) {
            self.source = source
            self.note = note
            self.isRequired = isRequired
        }
    }

    /// Verifies the log; `outside` is a signed checkpoint note kept outside the database, and `progress` is
    /// called after each page with the last position checked.
    /// - Throws: ``StoreError`` when the database cannot be read (a broken log is a report, not an error).
    public func verify(
        on connection: Connection,
        outside: String? = nil,
        progress: @Sendable (Int64) -> Void = { _ in }
    ) async throws -> Report {
        try await self.verify(
            on: connection,
            outsideNotes: outside.map { [OutsideNote(source: "the outside checkpoint", note: $0, isRequired: true)] }
                ?? [],
            progress: progress
        )
    }

    /// Verifies the log against every note of `outsideNotes` as well.
    /// - Throws: ``StoreError`` when the database cannot be read (a broken log is a report, not an error).
    public func verify(
        on connection: Connection,
        outsideNotes: [OutsideNote],
        progress: @Sendable (Int64) -> Void = { _ in }
    ) async throws -> Report {
        // One read-only snapshot, ended with ROLLBACK: a verification changes nothing.
        let snapshot = TransactionOptions(isolationLevel: .repeatableRead, isReadOnly: true, discardsChanges: true)
        return try await connection.withTransaction(snapshot) { connection in
            try await self.walk(on: connection, outside: outsideNotes, progress: progress)
        }
    }

    private func walk(
        on connection: Connection,
        outside: [OutsideNote],
        progress: @Sendable (Int64) -> Void
    ) async throws -> Report {
        let head = try await EventReader().head(on: connection)
        var (pins, foreign): ([Pin], [String])
        switch try await self.gatherPins(on: connection, outside: outside) {
        case .success(let gathered): (pins, foreign) = gathered
        case .failure(let broken): return broken.report
        }
        // After retention the walk starts at its anchor: checkpoints older than it can no longer be recomputed,
        // and the first one after it proves the anchor (a forged frontier gives another root).
        let anchor = try await LogAnchor.latest(on: connection)
        var frontier = anchor?.frontier ?? MerkleFrontier()
        if let anchor, let edge = anchor.edge, !edge.proves(anchor.frontier) {
            // The tiles that straddle the minimum index are served from the edge: it must be the frontier's.
            return .broken(
                position: anchor.size,
                reason: "the retention anchor's kept tile hashes do not hash to its frontier (authlog.log_retention)"
            )
        }
        if let anchor, let outside = pins.first(where: \.isRequired), outside.size < anchor.size {
            // Failing closed: nothing retained can show that the log still extends it.
            return .broken(
                position: anchor.size + 1,
                reason: "\(outside.source) at \(outside.size) predates the retained log (retention dropped "
                    + "positions 1…\(anchor.size)); verify against a note of \(anchor.size) events or more"
            )
        }
        pins.removeFirst(pins.prefix { $0.size < frontier.size }.count)
        var macs = MACTally()
        if let broken = try await self.replay(
            on: connection,
            frontier: &frontier,
            pins: pins,
            macs: &macs,
            headSize: head.size,
            progress: progress
        ) {
            return broken
        }
        if let broken = try await self.checkEnd(
            on: connection,
            head: head,
            frontier: frontier,
            pins: pins,
            anchor: anchor
        ) {
            return broken
        }
        if !foreign.isEmpty {
            return .otherKey(
                "signed by an unknown key: " + foreign.joined(separator: "; ")
                    + " (the events and the tree are intact; give every key the log was signed with: "
                    + "--verifier-key, or log.previous_checkpoint_verifier_keys)"
            )
        }
        let recorded = pins.filter(\.isRecorded).count
        return .intact(
            events: frontier.size - (anchor?.size ?? 0),
            root: frontier.root,
            checkpoints: pins.count - recorded,
            recordedRoots: recorded,
            unauthenticated: macs.unauthenticated,
            macsUnchecked: macs.authenticated > 0 && self.eventKey == nil,
            signedBy: self.tallies(of: pins),
            droppedThrough: anchor?.size ?? 0
        )
    }

    /// The notes of `pins` each key of the keyring signed, in the keyring's order.
    private func tallies(of pins: [Pin]) -> [KeyTally] {
        guard let keys = self.keys else { return [] }
        return keys.keys.map(NoteKeyring.keyID(of:)).compactMap { keyID in
            let signed = pins.filter { $0.keyID == keyID }
            guard !signed.isEmpty else { return nil }
            return KeyTally(
                keyID: keyID,
                stored: signed.filter(\.isStored).count,
                outside: signed.filter { !$0.isStored }.map(\.source)
            )
        }
    }

    /// Reads the events page by page from `frontier`, checking each one's leaf, subtrees, month order and MAC,
    /// and each pin as the frontier reaches its size; the first problem's report, or `nil`. The next page is
    /// read and hashed (``prefetch(after:on:)``) while this one is checked.
    private func replay(
        on connection: Connection,
        frontier: inout MerkleFrontier,
        pins: [Pin],
        macs: inout MACTally,
        headSize: Int64,
        progress: @Sendable (Int64) -> Void
    ) async throws -> Report? {
        var month = ""
        var macProblem: Report?
        var cursor = PinCursor(pins: pins, startingAt: frontier.size)
        if let broken = cursor.check(frontier) { return broken }
        var pending = self.prefetch(after: frontier.size, on: connection)
        while true {
            let rows: [ReplayRow]
            do {
                rows = try await pending.value
            } catch let error as StoreError where error.code == .decoding {
                return macProblem ?? .broken(position: frontier.size + 1, reason: error.message)
            }
            // A full page: the next one starts after its last row (where the frontier stands once it is checked).
            let next =
                rows.count < self.pageSize
                ? nil : rows.last.map { self.prefetch(after: $0.event.position, on: connection) }
            for row in rows {
                // Months follow positions (LogMonths); retention relies on it to drop exactly a prefix.
                if row.month < month {
                    await Self.drain(next)
                    return macProblem
                        ?? .broken(
                            position: row.event.position,
                            reason:
                                "out of order: the event's month \(row.month) is before \(month), an earlier position's"
                        )
                }
                month = row.month
                if let problem = self.check(row, frontier: &frontier, head: headSize) {
                    await Self.drain(next)
                    return macProblem ?? problem
                }
                if macProblem == nil,
                    let problem = macs.check(row.event, hasMAC: row.mac != nil, verifies: row.macVerifies)
                {
                    // Walked on to the next pin that differs: with it, the report names both the event and the
                    // range the roots allow.
                    macProblem = problem
                }
                if let broken = cursor.check(frontier) {
                    await Self.drain(next)
                    return Self.combining(macProblem, with: broken)
                }
            }
            progress(frontier.size)
            guard let next else { return macProblem }
            pending = next
        }
    }

    /// `macProblem` (the first event whose MAC fails, found before `broken`) and a pin's `broken` report in one:
    /// the event's position, both reasons.
    static func combining(_ macProblem: Report?, with broken: Report) -> Report {
        guard case .broken(let position, let reason)? = macProblem else { return broken }
        switch broken {
        case .broken(_, let pinReason), .fork(_, let pinReason):
            return .broken(position: position, reason: "\(reason); and \(pinReason)")
        case .intact, .otherKey:
            return .broken(position: position, reason: reason)
        }
    }

    /// What must hold once every event is replayed: the log reaches the head and every pin, the anchor is
    /// proved, the head's root is the recomputed one, and no committed event is stranded.
    private func checkEnd(
        on connection: Connection,
        head: LogHead,
        frontier: MerkleFrontier,
        pins: [Pin],
        anchor: LogAnchor?
    ) async throws -> Report? {
        let last = frontier.size
        if head.size > last {
            return .broken(
                position: last + 1,
                reason: "missing: the head is at \(head.size) but the log ends at \(last)"
            )
        }
        if let pin = pins.last, pin.size > last {
            return .broken(
                position: last + 1,
                reason: "rolled back: \(pin.source) covers \(pin.size) events but the log ends at \(last)"
            )
        }
        if let anchor, pins.isEmpty {
            return .broken(
                position: anchor.size + 1,
                reason: "the retention anchor at \(anchor.size) is covered by no signed checkpoint, so it is unproved"
            )
        }
        if let anchor {
            // An anchor row written by hand (its frontier computed from the stored nodes) would let whoever owns
            // the database drop or rewrite every event below it unseen: the walk starts after it. Its record must
            // be under a signed checkpoint, which the database owner cannot make.
            let signed = pins.last?.size ?? 0
            switch try await Self.recordPosition(of: anchor, on: connection) {
            case nil:
                return .broken(
                    position: anchor.size + 1,
                    reason: "the retention anchor at \(anchor.size) (authlog.log_retention) is on no record: no "
                        + "sealed audit.retention_applied after it names that size and its root (retention not "
                        + "applied by `authlog retention apply`, or its event was lost: "
                        + "`authlog retention apply --dry-run` records it)"
                )
            case let position? where position > signed:
                return .broken(
                    position: anchor.size + 1,
                    reason: "the retention anchor at \(anchor.size) is recorded at position \(position), after the "
                        + "last signed checkpoint (\(signed)), so it is unproved: verify again once a checkpoint "
                        + "covers it (`authlog checkpoint`)"
                )
            default: break
            }
        }
        if head.root != frontier.root {
            return .broken(position: last, reason: "the head's root differs from the root recomputed from the events")
        }
        let stranded = try await self.strandedCount(on: connection)
        if stranded > 0 {
            return .broken(
                position: last + 1,
                reason: "unsealed: \(stranded) committed events are neither sealed nor waiting in the queue"
            )
        }
        return nil
    }

    /// Committed events that are neither sealed, queued, nor refused by name.
    private func strandedCount(on connection: Connection) async throws -> Int64 {
        let stranded = try await connection.query(
            """
            SELECT count(*) FROM authlog.event_records r
            WHERE NOT EXISTS (SELECT FROM authlog.log_leaves l WHERE l.event_id = r.event_id
                              AND l.log_month = r.log_month)
              AND NOT EXISTS (SELECT FROM authlog.unsealed_events q WHERE q.event_id = r.event_id)
              -- Rows the sealer refused for their MAC are not stranded: the log names them.
              AND NOT EXISTS (SELECT FROM authlog.refused_events f WHERE f.event_id = r.event_id)
              AND NOT EXISTS (
                  SELECT FROM authlog.events f
                  WHERE f.type = 'audit.events_refused' AND jsonb_typeof(f.data->'event_ids') = 'array'
                    AND f.data->'event_ids' ? r.event_id::text)
            """
        )
        return try stranded.first?.decode(Int64.self, at: 0) ?? 0
    }

    /// The first problem with `row` as the next leaf of `frontier` (its digest and leaf were recomputed by
    /// ``page(after:on:)``), or nil once the leaf is appended.
    private func check(_ row: ReplayRow, frontier: inout MerkleFrontier, head: Int64) -> Report? {
        let event = row.event
        let expected = frontier.size + 1
        if event.position != expected {
            return .broken(
                position: expected,
                reason: "missing: event \(expected) is absent (the next stored position is \(event.position))"
            )
        }
        if event.position > head {
            return .broken(position: event.position, reason: "inserted: the event lies beyond the head at \(head)")
        }
        if row.digest != event.digest {
            return .broken(position: event.position, reason: "edited: the event's contents do not match its digest")
        }
        let leaf = row.leafHash
        if leaf != event.leafHash {
            return .broken(position: event.position, reason: "the leaf hash does not match the event")
        }
        let completed = frontier.append(leaf: leaf)
        if completed.flatMap({ $0 }) != row.subtrees {
            return .broken(position: event.position, reason: "the tree nodes stored with the leaf do not match")
        }
        return nil
    }

    /// The position of the first sealed `audit.retention_applied` after `anchor` (so among the events the walk
    /// just checked, in the same snapshot) that names its size and the root of its frontier; nil when none does.
    private static func recordPosition(of anchor: LogAnchor, on connection: Connection) async throws -> Int64? {
        let root = Hex.encode(anchor.frontier.root)
        let result = try await connection.query(
            """
            SELECT min(position) FROM authlog.events
            WHERE type = 'audit.retention_applied' AND position > \(anchor.size)
              AND data->>'last_dropped_position' = \(String(anchor.size)) AND data->>'root_at_drop' = \(root)
            """
        )
        return try result.rows.first?.decode(Int64?.self, at: 0)
    }
}
