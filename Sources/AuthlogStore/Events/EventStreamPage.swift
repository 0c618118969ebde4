public import AuthlogPostgres

extension EventReader {
    /// The most events one page of a streamed export reads (``streamRows(after:through:filter:on:)``): three
    /// pages are held at a time (one read, one being built, one written), about 3 × 5,000 lines of a few
    /// hundred bytes each.
    public static let streamPageSize = 5000

    /// The size of the sealed log now: where a streamed export stops.
    /// - Throws: ``StoreError`` `.schema` when the log has no head row, or from the server.
    public func sealedHead(on connection: Connection) async throws -> Int64 {
        guard let row = try await connection.query("SELECT size FROM authlog.log_head").first else {
            throw StoreError(.schema, "authlog.log_head has no row")
        }
        return try row.decode(Int64.self, at: 0)
    }

    /// The sealed events with `after` < position ≤ `through` that match `filter`, at most
    /// ``streamPageSize``, in position order, as read: their lines are built by the caller
    /// (``ExportStreamRows/newlineDelimited()``), on another task while the next page is read.
    ///
    /// No snapshot is needed across the pages of one stream: every event up to a sealed head keeps its
    /// position and its bytes, so a stream of pages read after one another from the head read at its start
    /// is the log's sequence as of that head. The page is read as ``page(after:limit:filter:on:)`` reads one,
    /// with its generic plan (a bound on the position in the query made the planner join the whole rest of the
    /// range for every page), and the rows past `through` are dropped.
    /// - Throws: ``StoreError`` `.decoding` for a row without a position, or from the server.
    public func streamRows(
        after: Int64,
        through: Int64,
        filter: EventFilter,
        on connection: Connection
    ) async throws -> ExportStreamRows {
        let results: [QueryResult]
        do {
            results = try await self.readPage(after: after, limit: Self.streamPageSize, filter: filter, on: connection)
        } catch {
            await connection.rollbackQuietly()
            throw error
        }
        guard results.count == 2 else { throw StoreError(.schema, "a stream page has no rows") }
        let rows = results[1].rows
        var kept = 0
        var last = after
        for row in rows {
            let position = try row.decode(Int64.self, at: 0)
            guard position <= through else { break }
            kept += 1
            last = position
        }
        let isFull = rows.count == Self.streamPageSize && kept == rows.count
        return ExportStreamRows(rows: rows.prefix(kept), next: isFull ? last : through, through: through)
    }
}

/// A page of a streamed export as read (``EventReader/streamRows(after:through:filter:on:)``), its lines not
/// built yet.
public struct ExportStreamRows: Sendable {
    /// The rows, selected with ``ExportLine/columns``, none past `through`.
    let rows: ArraySlice<QueryRow>
    /// Where the next page starts: the last event's position when the page is full, else `through` (every
    /// match up to it was returned).
    public let next: Int64
    /// Where the stream ends.
    let through: Int64

    /// The page's lines in the export format, each followed by a newline, in one run of bytes.
    /// - Throws: ``StoreError`` `.decoding` for a row that is not a stored event's.
    public func newlineDelimited() throws -> [UInt8] { try ExportLine.newlineDelimited(self.rows) }

    /// The page with each event's line, as the pages of `GET /v1/events` hold them (for the OCSF mapping).
    /// - Throws: ``StoreError`` `.decoding` for a row that is not a stored event's.
    public func page() throws -> ExportPage {
        ExportPage(events: try self.rows.map(ExportLine.make(from:)), next: self.next, head: self.through)
    }
}
