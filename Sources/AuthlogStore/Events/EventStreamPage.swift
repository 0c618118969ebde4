public import AuthlogPostgres

extension EventReader {
    /// The most events one page of a streamed export reads (``streamRows(after:through:filter:on:)``).
    public static let streamPageSize = 5000

    /// The most bytes of `data` one streamed page holds before its last row (4 MiB): with the other columns'
    /// few hundred bytes a row, a page stays under about 8 MB even when ingested events carry 64 KiB each.
    public static let streamPageBytes = 4 << 20

    /// The size of the sealed log now: where a streamed export stops.
    /// - Throws: ``StoreError`` `.schema` when the log has no head row, or from the server.
    public func sealedHead(on connection: Connection) async throws -> Int64 {
        guard let row = try await connection.query("SELECT size FROM authlog.log_head").first else {
            throw StoreError(.schema, "authlog.log_head has no row")
        }
        return try row.decode(Int64.self, at: 0)
    }

    /// The sealed events with `after` < position ≤ `through` that match `filter`, at most
    /// ``streamPageSize`` and about ``streamPageBytes``, in position order, as read: their lines are built by
    /// the caller (``ExportStreamRows/newlineDelimited()``), on another task while the next page is read.
    ///
    /// Every event up to a sealed head keeps its position and its bytes, so pages read one after another,
    /// from the head read at the stream's start, are the log's sequence as of that head — provided each comes
    /// from a database that has that head. A read replica that is behind (or another standby than the one
    /// the head came from) answers a short page: an empty page from a database whose own head is below
    /// `through` is refused with `.outOfRange`, which sends the read to the primary (``ReadDatabase``), so a
    /// stream never ends early without saying so. The page is read as ``page(after:limit:filter:on:)`` reads
    /// one, with its generic plan (a bound on the position in the query made the planner join the whole rest of
    /// the range for every page), and the rows past `through` are dropped.
    /// - Throws: ``StoreError`` `.outOfRange` as above, `.decoding` for a row without a position, or from the
    ///   server.
    public func streamRows(
        after: Int64,
        through: Int64,
        filter: EventFilter,
        on connection: Connection
    ) async throws -> ExportStreamRows {
        let results = try await self.readPage(
            after: after,
            limit: Self.streamPageSize,
            filter: filter,
            byteCap: Self.streamPageBytes,
            on: connection
        )
        guard results.count == 2, let headRow = results[0].first else {
            throw StoreError(.schema, "authlog.log_head has no row")
        }
        let rows = results[1].rows
        var kept = 0
        var last: Int64?
        for row in rows {
            let position = try row.decode(Int64.self, at: 0)
            guard position <= through else { break }
            kept += 1
            last = position
        }
        guard let last else {
            let head = try headRow.decode(Int64.self, at: 0)
            guard head >= through else {
                throw StoreError(.outOfRange, "this database's log ends at \(head), before the stream's end \(through)")
            }
            return ExportStreamRows(rows: [], next: through, through: through)
        }
        return ExportStreamRows(rows: rows.prefix(kept), next: last, through: through)
    }
}

/// A page of a streamed export as read (``EventReader/streamRows(after:through:filter:on:)``), its lines not
/// built yet.
public struct ExportStreamRows: Sendable {
    /// The rows, selected with ``ExportLine/columns``, none past `through`.
    let rows: ArraySlice<QueryRow>
    /// Where the next page starts: the last event's position, or `through` when the page is empty (every
    /// match up to it was returned). A page that ends short of `through` is followed by another, which is empty
    /// at the end of a filtered stream.
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
