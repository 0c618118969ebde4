import AuthlogCore
import AuthlogCrypto

/// Recomputes the log from the events and checks everything stored against it: each event's digest from its
/// contents, each leaf hash, the interior nodes kept with each leaf, the head, and every signed checkpoint
/// (its signature when a key is given, and its root against the recomputed tree at its size). Given a
/// checkpoint kept outside the database, it proves that the log still extends it.
///
/// Caught, with the first bad position: an edited event (digest), an edited leaf or node, a deleted event (a
/// gap), an inserted one (beyond the head), a committed event that was neither sealed nor queued, a
/// truncation (a checkpoint beyond the end), and a rewrite with recomputed hashes (the root at a checkpoint's
/// size differs, or the checkpoint was re-signed without the key).
public struct LogVerifier: Sendable {
    /// What the walk found.
    public enum Report: Sendable, Equatable {
        /// Every event checked out; `events` were checked, the root is the recomputed one, and `checkpoints`
        /// signed checkpoints (the outside one included) matched.
        case intact(events: Int64, root: [UInt8], checkpoints: Int)
        /// The first bad position, and why.
        case broken(position: Int64, reason: String)
    }

    /// Events read per query.
    public var pageSize: Int
    /// The key that signed the checkpoints; without it signatures are not checked (roots still are).
    public var key: NoteVerifier?

    /// Creates a verifier reading `pageSize` events per query.
    public init(pageSize: Int = 5000, key: NoteVerifier? = nil) {
        self.pageSize = pageSize
        self.key = key
    }

    /// Verifies the log; `outside` is a signed checkpoint note kept outside the database, and `progress` is
    /// called after each page with the last position checked.
    /// - Throws: ``StoreError`` when the database cannot be read (a broken log is a report, not an error).
    public func verify(
        on connection: Connection,
        outside: String? = nil,
        progress: @Sendable (Int64) -> Void = { _ in }
    ) async throws -> Report {
        try await connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let report = try await self.walk(on: connection, outside: outside, progress: progress)
            await connection.rollbackQuietly()
            return report
        } catch {
            await connection.rollbackQuietly()
            throw error
        }
    }

    /// A checkpoint to compare with the recomputed root at its size.
    private struct Pin {
        var size: Int64
        var root: [UInt8]
        var source: String
        var isOutside = false
    }

    private func walk(
        on connection: Connection,
        outside: String?,
        progress: @Sendable (Int64) -> Void
    ) async throws -> Report {
        let head = try await EventReader().head(on: connection)
        var pins: [Pin] = []
        switch try await self.storedPins(on: connection) {
        case .success(let stored): pins = stored
        case .failure(let broken): return broken.report
        }
        if let outside {
            switch self.outsidePin(outside) {
            case .success(let pin): pins.append(pin)
            case .failure(let broken): return broken.report
            }
        }
        pins.sort { $0.size < $1.size }
        // After retention the walk starts at its anchor: checkpoints older than it can no longer be recomputed,
        // and the first one after it proves the anchor (a forged frontier gives another root).
        let anchor = try await LogAnchor.latest(on: connection)
        var frontier = anchor?.frontier ?? MerkleFrontier()
        if let anchor, let outside = pins.first(where: \.isOutside), outside.size < anchor.size {
            // Failing closed: nothing retained can show that the log still extends it.
            return .broken(
                position: anchor.size + 1,
                reason: "the outside checkpoint at \(outside.size) predates the retained log (retention dropped "
                    + "positions 1…\(anchor.size)); verify against a note of \(anchor.size) events or more"
            )
        }
        let dropped = pins.prefix { $0.size < frontier.size }.count
        pins.removeFirst(dropped)
        var month = ""
        var nextPin = pins.startIndex
        var lastGoodPin: Int64 = frontier.size
        func checkPins() -> Report? {
            while nextPin < pins.endIndex, pins[nextPin].size == frontier.size {
                let pin = pins[nextPin]
                if frontier.root != pin.root {
                    return .broken(
                        position: lastGoodPin + 1,
                        reason: "rewritten: the tree of \(pin.size) events no longer has the root of \(pin.source); "
                            + "positions \(lastGoodPin + 1)…\(pin.size) were changed"
                    )
                }
                lastGoodPin = pin.size
                nextPin += 1
            }
            return nil
        }
        if let broken = checkPins() { return broken }
        while true {
            let rows: [(event: RecordedEvent, subtrees: [UInt8], month: String)]
            do {
                rows = try await self.page(after: frontier.size, on: connection)
            } catch let error as StoreError where error.code == .decoding {
                return .broken(position: frontier.size + 1, reason: error.message)
            }
            for row in rows {
                // Months follow positions (LogMonths); retention relies on it to drop exactly a prefix.
                if row.month < month {
                    return .broken(
                        position: row.event.position,
                        reason: "out of order: the event's month \(row.month) is before \(month), an earlier position's"
                    )
                }
                month = row.month
                if let problem = self.check(row.event, subtrees: row.subtrees, frontier: &frontier, head: head.size) {
                    return problem
                }
                if let broken = checkPins() { return broken }
            }
            progress(frontier.size)
            if rows.count < self.pageSize { break }
        }
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
                reason: "truncated: \(pin.source) covers \(pin.size) events but the log ends at \(last)"
            )
        }
        if let anchor, pins.isEmpty {
            return .broken(
                position: anchor.size + 1,
                reason: "the retention anchor at \(anchor.size) is covered by no signed checkpoint, so it is unproved"
            )
        }
        if head.root != frontier.root {
            return .broken(position: last, reason: "the head's root differs from the root recomputed from the events")
        }
        let stranded = try await connection.query(
            """
            SELECT count(*) FROM authlog.event_records r
            WHERE NOT EXISTS (SELECT FROM authlog.log_leaves l WHERE l.event_id = r.event_id
                              AND l.log_month = r.log_month)
              AND NOT EXISTS (SELECT FROM authlog.unsealed_events q WHERE q.event_id = r.event_id)
            """
        )
        if let count = try stranded.first?.decode(Int64.self, at: 0), count > 0 {
            return .broken(
                position: last + 1,
                reason: "unsealed: \(count) committed events are neither sealed nor waiting in the queue"
            )
        }
        return .intact(events: last - (anchor?.size ?? 0), root: frontier.root, checkpoints: pins.count)
    }

    private func page(
        after position: Int64,
        on connection: Connection
    ) async throws -> [(event: RecordedEvent, subtrees: [UInt8], month: String)] {
        let result = try await connection.query(
            """
            SELECT \(unescaped: EventRow.sealedColumns),
                   (SELECT l.subtree_hashes FROM authlog.log_leaves l
                    WHERE l.position = events.position AND l.log_month = events.log_month),
                   events.log_month::text
            FROM authlog.events
            WHERE position > \(position) ORDER BY position LIMIT \(self.pageSize)
            """
        )
        return try result.rows.map { row in
            (
                try EventRow.decode(row), try row.decode(ByteaValue.self, at: 20).bytes,
                try row.decode(String.self, at: 21)
            )
        }
    }

    private func check(
        _ event: RecordedEvent,
        subtrees: [UInt8],
        frontier: inout MerkleFrontier,
        head: Int64
    ) -> Report? {
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
        let digest = EventRow.digest(of: event.envelope, recordedAt: event.recordedAt)
        if digest != event.digest {
            return .broken(position: event.position, reason: "edited: the event's contents do not match its digest")
        }
        let leaf = MerkleTree.leafHash(position: event.position, digest: digest)
        if leaf != event.leafHash {
            return .broken(position: event.position, reason: "the leaf hash does not match the event")
        }
        let completed = frontier.append(leaf: leaf)
        if completed.flatMap({ $0 }) != subtrees {
            return .broken(position: event.position, reason: "the tree nodes stored with the leaf do not match")
        }
        return nil
    }

    private struct Broken: Error {
        var report: Report
    }

    private func storedPins(on connection: Connection) async throws -> Result<[Pin], Broken> {
        let rows = try await connection.query(
            "SELECT tree_size, root, note FROM authlog.checkpoints ORDER BY tree_size"
        )
        var pins: [Pin] = []
        var lastGood: Int64 = 0
        for row in rows.rows {
            let size = try row.decode(Int64.self, at: 0)
            let root = try row.decode(ByteaValue.self, at: 1).bytes
            let note = try row.decode(String.self, at: 2)
            let source = "the stored checkpoint at \(size)"
            if let key = self.key {
                let body: String
                do {
                    body = try key.open(note)
                } catch {
                    return .failure(Broken(report: .broken(position: lastGood + 1, reason: "\(source): \(error)")))
                }
                guard let checkpoint = Checkpoint(body: body), checkpoint.size == size, checkpoint.root == root else {
                    return .failure(
                        Broken(
                            report: .broken(position: lastGood + 1, reason: "\(source): the note differs from its row")
                        )
                    )
                }
            }
            pins.append(Pin(size: size, root: root, source: source))
            lastGood = size
        }
        return .success(pins)
    }

    private func outsidePin(_ note: String) -> Result<Pin, Broken> {
        guard let key = self.key else {
            return .failure(
                Broken(report: .broken(position: 1, reason: "no key to check the outside checkpoint's signature with"))
            )
        }
        do {
            guard let checkpoint = Checkpoint(body: try key.open(note)) else {
                return .failure(Broken(report: .broken(position: 1, reason: "the outside note is not a checkpoint")))
            }
            return .success(
                Pin(size: checkpoint.size, root: checkpoint.root, source: "the outside checkpoint", isOutside: true)
            )
        } catch {
            return .failure(Broken(report: .broken(position: 1, reason: "the outside checkpoint: \(error)")))
        }
    }
}
