public import AuthlogCore
public import AuthlogPostgres
public import Foundation

/// Which events an export returns: every one, or those of one type, user and/or provider.
public struct EventFilter: Sendable, Equatable {
    /// Only events of this type.
    public var type: EventType?
    /// Only events naming this user.
    public var userID: UUID?
    /// Only events naming this provider.
    public var provider: String?

    /// Creates a filter; nil members match everything.
    public init(type: EventType? = nil, userID: UUID? = nil, provider: String? = nil) {
        self.type = type
        self.userID = userID
        self.provider = provider
    }

    /// Appends ` AND type = $n`, ` AND user_id = $n` and ` AND provider = $n` for the members set, binding
    /// their values.
    func appendConditions(to select: inout SQLQuery) {
        if let type = self.type {
            let placeholder = select.bind(type.rawValue)
            select.append(unescaped: " AND type = \(placeholder)")
        }
        if let userID = self.userID {
            let placeholder = select.bind(userID)
            select.append(unescaped: " AND user_id = \(placeholder)")
        }
        if let provider = self.provider {
            let placeholder = select.bind(provider)
            select.append(unescaped: " AND provider = \(placeholder)")
        }
    }

    /// The filter as `type=… user_id=… provider=…` (only the members set), for `audit.accessed`.
    public var summary: String {
        var parts: [String] = []
        if let type { parts.append("type=\(type.rawValue)") }
        if let userID { parts.append("user_id=\(userID.lowercased)") }
        if let provider { parts.append("provider=\(provider)") }
        return parts.joined(separator: " ")
    }
}

/// One page of an export: the sealed events after a cursor, in position order, and the cursor to resume
/// from.
public struct ExportPage: Sendable {
    /// The events in position order: each one's position, and its line of JSON in the export format.
    public var events: [(position: Int64, json: String)]
    /// Where the next page starts (`after=next`). Every sealed event up to `next` that matches the filter is
    /// in this page or an earlier one: a consumer that stops and resumes from it misses nothing and sees
    /// nothing twice.
    public var next: Int64
    /// The sealed log's size when the page was read.
    public var head: Int64
}

/// A page of an export as read, before its lines are built: the rows and the cursors. The cursors are known
/// as soon as the rows are, so a caller can record the read while ``lines()`` builds the page.
public struct ExportRows: Sendable {
    /// The rows, selected with ``ExportLine/columns``.
    let rows: [QueryRow]
    /// Where the next page starts (``ExportPage/next``).
    public let next: Int64
    /// The sealed log's size when the page was read.
    public let head: Int64

    /// The page with each event's line in the export format.
    /// - Throws: ``StoreError`` `.decoding` for a row that is not a stored event's.
    public func lines() throws -> ExportPage {
        ExportPage(events: try self.rows.map(ExportLine.make(from:)), next: self.next, head: self.head)
    }
}

extension EventReader {
    /// The largest page one export request may ask for.
    public static let maximumExportPage = 1000

    /// Up to `limit` sealed events after position `after` that match `filter`, and the cursor to resume from.
    ///
    /// The head and the events are read in one snapshot, so when fewer than `limit` events match, the cursor
    /// moves to the head: nothing up to it was left out. A cursor beyond the head is refused
    /// (`.outOfRange`): it names events this log does not have, which means the consumer read another
    /// database or this one lost events.
    /// - Throws: ``StoreError`` `.outOfRange`, `.decoding`, or from the server.
    public func page(
        after: Int64,
        limit: Int,
        filter: EventFilter,
        on connection: Connection
    ) async throws -> ExportPage {
        try await self.rows(after: after, limit: limit, filter: filter, on: connection).lines()
    }

    /// The rows of ``page(after:limit:filter:on:)`` and its cursors, with the lines not built yet.
    /// - Throws: ``StoreError`` `.outOfRange`, or from the server.
    public func rows(
        after: Int64,
        limit: Int,
        filter: EventFilter,
        on connection: Connection
    ) async throws -> ExportRows {
        let limit = min(max(limit, 1), Self.maximumExportPage)
        let results = try await self.readPage(after: after, limit: limit, filter: filter, on: connection)
        guard results.count == 2, let headRow = results[0].first else {
            throw StoreError(.schema, "authlog.log_head has no row")
        }
        let head = try headRow.decode(Int64.self, at: 0)
        guard after <= head else {
            throw StoreError(.outOfRange, "the log ends at position \(head); the cursor \(after) lies beyond it")
        }
        let rows = results[1].rows
        let next = rows.count == limit ? try rows[rows.count - 1].decode(Int64.self, at: 0) : head
        return ExportRows(rows: rows, next: next, head: head)
    }

    /// The head and the page, in one snapshot and one round trip.
    ///
    /// Not ``Connection/withTransaction(_:_:)``: BEGIN, the two reads and COMMIT go in one pipeline, which
    /// the scoped form would split into three round trips, so this rolls back itself when anything throws.
    /// A page without filters (a SIEM's, a sink's) keeps one generic plan for the connection: planning the
    /// join over the log's partitions cost more than a millisecond a page, every page.
    ///
    /// With `byteCap` the page also stops once the `data` of the rows before a row reaches that many bytes (the
    /// first row always comes): a streamed page stays a few megabytes even when ingested events carry 64 KiB
    /// each.
    func readPage(
        after: Int64,
        limit: Int,
        filter: EventFilter,
        byteCap: Int? = nil,
        on connection: Connection
    ) async throws -> [QueryResult] {
        var select: SQLQuery = "SELECT \(unescaped: ExportLine.columns) FROM authlog.events e WHERE position > \(after)"
        filter.appendConditions(to: &select)
        let limitPlaceholder = select.bind(limit)
        select.append(unescaped: " ORDER BY position LIMIT \(limitPlaceholder)")
        if let byteCap { select = Self.capped(select, byteCap: byteCap) }
        var statements: [SQLQuery] = ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"]
        if filter == EventFilter() { statements.append("SET LOCAL plan_cache_mode = force_generic_plan") }
        statements += ["SELECT size FROM authlog.log_head", select, "COMMIT"]
        let results: [QueryResult]
        do {
            results = try await connection.pipeline(statements)
        } catch {
            await connection.rollbackQuietly()
            throw error
        }
        // The head's and the page's results, wherever the settings put them.
        return Array(results.suffix(3).prefix(2))
    }

    /// `page` (selecting ``ExportLine/columns``) cut where the running sum of its `data` text, before a row,
    /// reaches `byteCap`; the text is made once per row, in the inner select.
    private static func capped(_ page: SQLQuery, byteCap: Int) -> SQLQuery {
        var capped = SQLQuery(
            unsafeSQL: """
                SELECT \(ExportLine.outputNames) FROM (SELECT page.*, sum(octet_length(page.data)) OVER (ORDER BY \
                page.position ROWS UNBOUNDED PRECEDING) AS running FROM (\(page.sql)) page) sized \
                WHERE sized.running - octet_length(sized.data) < 
                """
        )
        for bind in page.binds { _ = capped.bind(bind) }
        let capPlaceholder = capped.bind(byteCap)
        capped.append(unescaped: "\(capPlaceholder) ORDER BY sized.position")
        return capped
    }
}
