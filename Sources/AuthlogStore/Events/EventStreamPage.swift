public import AuthlogPostgres

extension EventReader {
    /// The most events one page of a streamed export reads (``streamPage(after:through:filter:on:)``): two
    /// pages are held at a time, so about 2 × 5,000 lines of a few hundred bytes each.
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
    /// ``streamPageSize``, in position order, with their lines built.
    ///
    /// No snapshot is needed across the pages of one stream: every event up to a sealed head keeps its
    /// position and its bytes, so a stream of pages read after one another from the head read at its start
    /// is the log's sequence as of that head. The page is read as ``page(after:limit:filter:on:)`` reads one,
    /// with its generic plan (a bound on the position in the query made the planner join the whole rest of the
    /// range for every page: 0.26x COPY), and the events past `through` are dropped. `next` is the last event's
    /// position when the page is full, else `through`: every match up to it was returned.
    /// - Throws: ``StoreError`` `.decoding` for a row that is not a stored event's, or from the server.
    public func streamPage(
        after: Int64,
        through: Int64,
        filter: EventFilter,
        on connection: Connection
    ) async throws -> ExportPage {
        let results: [QueryResult]
        do {
            results = try await self.readPage(after: after, limit: Self.streamPageSize, filter: filter, on: connection)
        } catch {
            await connection.rollbackQuietly()
            throw error
        }
        guard results.count == 2 else { throw StoreError(.schema, "a stream page has no rows") }
        let rows = results[1].rows
        var events: [(position: Int64, json: String)] = []
        events.reserveCapacity(rows.count)
        for row in rows {
            let event = try ExportLine.make(from: row)
            guard event.position <= through else { break }
            events.append(event)
        }
        let isFull = rows.count == Self.streamPageSize && events.count == rows.count
        let next = isFull ? events[events.count - 1].position : through
        return ExportPage(events: events, next: next, head: through)
    }
}
