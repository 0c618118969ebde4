import AuthlogCore
import AuthlogPostgres
import AuthlogTransparency
import Foundation

/// One sealing transaction, the only serial step of the write path: under the locked log head it takes up to
/// `limit` committed events from the queue (in queue order), gives them the next gapless positions, computes
/// their leaf hashes, extends the Merkle tree, stores the leaves with the interior nodes they complete, and
/// moves the head. Runs entirely on the connection's own thread.
enum SealStep {
    /// The most events one sealing transaction takes.
    static let defaultLimit = 5000

    /// What one step sealed.
    struct Sealed: Sendable {
        /// How many events got positions.
        var count: Int
        /// The tree size after the step.
        var treeSize: Int64
        /// How many queued rows were refused for their MAC (moved to `authlog.refused_events`, never sealed).
        var refused = 0
        /// Whether the step took nothing from the queue (it is empty).
        var isEmpty: Bool { self.count == 0 && self.refused == 0 }
    }

    /// A queued row.
    private struct Queued {
        let order: Int64
        let id: String
        let digest: [UInt8]
        let mac: [UInt8]?
        /// The event id has a leaf already (in any month): a replayed row, never sealed twice.
        let isSealedAlready: Bool
    }

    /// Seals up to `limit` queued events. With `ownsTransaction` the step begins and commits its own
    /// transaction; without, it runs inside the caller's (the migration, a rebuild). It also adds the sealed
    /// sign-ins, as their writers queued them, to `authlog.signins_daily`: the one projection kept in log
    /// order (see ``ProjectionWriter/statements(for:countingSignins:)``). Leaves are stamped with the log's
    /// current month, which is every queued event's month (``LogMonths``); migration 6, older than the months,
    /// seals with `stampingMonth: false`.
    ///
    /// With an `authenticator` (the event key) a queued row whose MAC is wrong, or missing once the log's
    /// events are authenticated (the head holds the key's id, set by the first step with the key), is not
    /// sealed: it moves to `authlog.refused_events`, and everything else is sealed as usual. A step without the
    /// key refuses to seal queued rows of a log whose events are authenticated (``EventKeyCheck``). Migration 6
    /// (`stampingMonth: false`) predates the MACs too.
    static func run(
        limit: Int = Self.defaultLimit,
        ownsTransaction: Bool,
        stampingMonth: Bool = true,
        authenticator: EventAuthenticator? = nil,
        on connection: isolated Connection
    ) throws -> Sealed {
        // Not Connection.withTransaction: BEGIN goes in one pipeline with the head's lock and the queue's
        // DELETE, and COMMIT with the leaves' INSERT and the head's UPDATE (an empty step ends with ROLLBACK).
        // The scoped form would add a round trip at each end of every seal step.
        let opening = Self.opening(limit: limit, ownsTransaction: ownsTransaction, stampingMonth: stampingMonth)
        do {
            let results = try connection.pipeline(opening)
            guard results.count == opening.count, let headRow = results[results.count - 2].first else {
                throw StoreError(.schema, "authlog.log_head has no row")
            }
            let head = try Head(headRow)
            let rows = results[results.count - 1].rows
            if !rows.isEmpty {
                try EventKeyCheck.require(logKeyID: head.logKeyID, authenticator: authenticator)
            }
            let triage = try Self.triage(rows, authenticator: authenticator, logIsAuthenticated: head.logKeyID != nil)
            guard !triage.queued.isEmpty || !triage.refused.isEmpty else {
                if ownsTransaction { try connection.execute("ROLLBACK") }
                return Sealed(count: 0, treeSize: head.size)
            }
            var closing: [SQLQuery] = triage.refused.isEmpty ? [] : [Self.moveRefused(triage.refused)]
            if let authenticator, head.logKeyID == nil {
                closing.append("UPDATE authlog.log_head SET event_key_id = \(ByteaValue(authenticator.keyID))")
            }
            guard !triage.queued.isEmpty else {
                if ownsTransaction { closing.append("COMMIT") }
                try connection.pipeline(closing)
                return Sealed(count: 0, treeSize: head.size, refused: triage.refused.count)
            }
            var frontier = head.frontier
            closing += Self.storeLeaves(of: triage.queued, extending: &frontier, stampingMonth: stampingMonth)
            if !triage.signins.isEmpty {
                closing.append(Self.countSignins(triage.signins))
            }
            if ownsTransaction { closing.append("COMMIT") }
            try connection.pipeline(closing)
            return Sealed(count: triage.queued.count, treeSize: frontier.size, refused: triage.refused.count)
        } catch {
            if ownsTransaction { connection.rollbackQuietly() }
            throw error
        }
    }

    /// The opening pipeline: BEGIN (when the step owns its transaction), the log head locked, and the queue's
    /// oldest `limit` rows deleted and returned.
    private static func opening(limit: Int, ownsTransaction: Bool, stampingMonth: Bool) -> [SQLQuery] {
        var opening: [SQLQuery] = ownsTransaction ? ["BEGIN"] : []
        opening += [
            stampingMonth
                ? "SELECT size, frontier, event_key_id FROM authlog.log_head FOR UPDATE"
                : "SELECT size, frontier, NULL::bytea FROM authlog.log_head FOR UPDATE",
            """
            DELETE FROM authlog.unsealed_events
            WHERE queued = ANY(ARRAY(SELECT queued FROM authlog.unsealed_events ORDER BY queued LIMIT \(limit)))
            RETURNING queued, event_id::text, digest, signin_day::text, signin_provider, signin_outcome, \(
                unescaped: stampingMonth ? "mac" : "NULL::bytea"),
                EXISTS (SELECT FROM authlog.log_leaves l WHERE l.event_id = unsealed_events.event_id)
            """,
        ]
        return opening
    }

    /// The locked log head as read by the opening pipeline.
    private struct Head {
        let size: Int64
        let frontier: MerkleFrontier
        /// The event key's id once the log's events are authenticated.
        let logKeyID: [UInt8]?

        /// Decodes the head's row: its size, a frontier that fits the size, and the event key's id.
        init(_ row: QueryRow) throws {
            let size = try row.decode(Int64.self, at: 0)
            guard let frontier = MerkleFrontier(size: size, bytes: try row.decode(ByteaValue.self, at: 1).bytes)
            else {
                throw StoreError(.schema, "authlog.log_head's frontier does not fit its size \(size)")
            }
            self.size = size
            self.frontier = frontier
            self.logKeyID = try row.decode(ByteaValue?.self, at: 2)?.bytes
        }
    }

    /// The queue rows a step took, sorted into those to seal and those refused.
    private struct Triage {
        var queued: [Queued] = []
        var refused: [Queued] = []
        /// The sign-ins among the rows to seal, by day, provider and outcome.
        var signins: [EventRow.SigninCount: Int64] = [:]
    }

    /// Sorts the taken queue rows: a replayed row (its event sealed already) or, with an `authenticator`, a
    /// row that is not authentic is refused; every other row is sealed and its sign-in counted.
    private static func triage(
        _ rows: [QueryRow],
        authenticator: EventAuthenticator?,
        logIsAuthenticated: Bool
    ) throws -> Triage {
        var triage = Triage()
        for row in rows {
            let entry = Queued(
                order: try row.decode(Int64.self, at: 0),
                id: try row.decode(String.self, at: 1),
                digest: try row.decode(ByteaValue.self, at: 2).bytes,
                mac: try row.decode(ByteaValue?.self, at: 6)?.bytes,
                isSealedAlready: try row.decode(Bool.self, at: 7)
            )
            if entry.isSealedAlready {
                triage.refused.append(entry)
                continue
            }
            if let authenticator, !Self.isAuthentic(entry, authenticator, logIsAuthenticated: logIsAuthenticated) {
                triage.refused.append(entry)
                continue
            }
            triage.queued.append(entry)
            if let day = try row.decode(String?.self, at: 3), let provider = try row.decode(String?.self, at: 4),
                let outcome = try row.decode(String?.self, at: 5)
            {
                triage.signins[EventRow.SigninCount(day: day, provider: provider, outcome: outcome), default: 0] += 1
            }
        }
        return triage
    }

    /// The log head's row, locked, when no committed event waits in the queue and no other transaction holds
    /// the head (a sealer's step, another writer sealing its batch); no row otherwise (`SKIP LOCKED`: the writer
    /// does not wait, it queues its batch as usual). A writer that gets it seals its own batch (``sealing(_:head:)``).
    static let idleHeadLock: SQLQuery = """
        SELECT size, frontier, event_key_id FROM authlog.log_head
        WHERE NOT EXISTS (SELECT FROM authlog.unsealed_events) FOR UPDATE SKIP LOCKED
        """

    /// The statements that seal a writer's own `rows` in its transaction, under the head `row` it locked with
    /// ``idleHeadLock``: their leaves at the next positions in the rows' order (the order their queue rows would
    /// have had), the head moved and their sign-ins counted, as a step over the same queue rows would; and the
    /// positions given. The rows are the writer's own, with MACs it made, so nothing is triaged.
    static func sealing(
        _ rows: [EventRow.Committed],
        head row: QueryRow
    ) throws -> (statements: [SQLQuery], positions: [UUID: Int64]) {
        var frontier = try Head(row).frontier
        let first = frontier.size + 1
        var positions: [UUID: Int64] = [:]
        var signins: [EventRow.SigninCount: Int64] = [:]
        let queued = rows.enumerated().map { index, committed in
            positions[committed.envelope.eventID] = first + Int64(index)
            if let count = committed.signinCount { signins[count, default: 0] += 1 }
            return Queued(
                order: Int64(index),
                id: committed.envelope.eventID.lowercased,
                digest: committed.digest,
                mac: nil,
                isSealedAlready: false
            )
        }
        var statements = Self.storeLeaves(of: queued, extending: &frontier, stampingMonth: true)
        if !signins.isEmpty { statements.append(Self.countSignins(signins)) }
        return (statements, positions)
    }

    /// Gives `queued` the next positions in queue order, extends `frontier` with their leaves, and returns the
    /// INSERT of the leaves (with the interior nodes each completes) and the UPDATE of the head.
    private static func storeLeaves(
        of queued: [Queued],
        extending frontier: inout MerkleFrontier,
        stampingMonth: Bool
    ) -> [SQLQuery] {
        let queued = queued.sorted { $0.order < $1.order }
        var positions: [String?] = []
        var ids: [String?] = []
        var leaves: [String?] = []
        var nodes: [String?] = []
        for entry in queued {
            let position = frontier.size + 1
            let leaf = MerkleTree.leafHash(position: position, digest: entry.digest)
            let completed = frontier.append(leaf: leaf)
            positions.append(String(position))
            ids.append(entry.id)
            leaves.append(ByteaValue(leaf).sqlText)
            nodes.append(ByteaValue(completed.flatMap { $0 }).sqlText)
        }
        return [
            """
            INSERT INTO authlog.log_leaves (position, event_id, leaf_hash, subtree_hashes, sealed_at\(
                unescaped: stampingMonth ? ", log_month" : ""))
            SELECT p, id, leaf, nodes, clock_timestamp()\(unescaped: stampingMonth ? ", " + LogMonths.currentMonth : "")
            FROM unnest(\(ArrayLiteral(positions))::bigint[], \(ArrayLiteral(ids))::uuid[],
                        \(ArrayLiteral(leaves))::bytea[], \(ArrayLiteral(nodes))::bytea[]) AS s(p, id, leaf, nodes)
            """,
            """
            UPDATE authlog.log_head SET size = \(frontier.size), root = \(ByteaValue(frontier.root)),
                frontier = \(ByteaValue(frontier.bytes)), updated_at = clock_timestamp()
            """,
        ]
    }

    /// Whether a queued row was written by a holder of the event key. Before the log's events are
    /// authenticated, a row without a MAC is from before the key (a process that had none); after, it is not.
    private static func isAuthentic(
        _ entry: Queued,
        _ authenticator: EventAuthenticator,
        logIsAuthenticated: Bool
    )
        -> Bool
    {
        guard let mac = entry.mac else { return !logIsAuthenticated }
        return authenticator.isValid(mac, for: entry.digest)
    }

    /// Keeps refused queue rows as evidence in `authlog.refused_events` until they are recorded.
    private static func moveRefused(_ refused: [Queued]) -> SQLQuery {
        """
        INSERT INTO authlog.refused_events (queued, event_id, digest, mac, reason, refused_at)
        SELECT q, id, digest, mac,
               CASE WHEN again THEN 'duplicate' WHEN mac IS NULL THEN 'mac_missing' ELSE 'mac_mismatch' END,
               clock_timestamp()
        FROM unnest(\(ArrayLiteral(refused.map { String($0.order) }))::bigint[],
                    \(ArrayLiteral(refused.map(\.id)))::uuid[],
                    \(ArrayLiteral(refused.map { ByteaValue($0.digest).sqlText }))::bytea[],
                    \(ArrayLiteral(refused.map { $0.mac.map { ByteaValue($0).sqlText } }))::bytea[],
                    \(ArrayLiteral(refused.map { String($0.isSealedAlready) }))::boolean[])
             AS r(q, id, digest, mac, again)
        ON CONFLICT (queued) DO NOTHING
        """
    }

    /// The upsert of sealed sign-ins into `signins_daily`, rows in key order so that two sealers' transactions
    /// (a sealer and a rebuild) can never deadlock on them.
    private static func countSignins(_ signins: [EventRow.SigninCount: Int64]) -> SQLQuery {
        let keys = signins.keys.sorted { ($0.day, $0.provider, $0.outcome) < ($1.day, $1.provider, $1.outcome) }
        return """
            INSERT INTO authlog.signins_daily (day, provider, outcome, signins)
            SELECT * FROM unnest(\(ArrayLiteral(keys.map(\.day)))::date[], \(ArrayLiteral(keys.map(\.provider)))::text[],
                                 \(ArrayLiteral(keys.map(\.outcome)))::text[],
                                 \(ArrayLiteral(keys.map { String(signins[$0] ?? 0) }))::bigint[])
            ON CONFLICT (day, provider, outcome) DO UPDATE SET signins = signins_daily.signins + excluded.signins
            """
    }
}
