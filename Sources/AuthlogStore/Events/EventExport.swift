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

extension EventReader {
    /// The largest page one export request may ask for.
    public static let maximumExportPage = 1000

    /// Up to `limit` sealed events after position `after` that match `filter`, and the cursor to resume from.
    ///
    /// The head and the events are read in one snapshot, so when fewer than `limit` events match, the cursor
    /// moves to the head: nothing up to it was left out. A cursor beyond the head is refused
    /// (`.outOfRange`): it names events this log does not have, which means the consumer read another
    /// database or this one lost events.
    /// - Throws: ``StoreError`` `.outOfRange`, or from the server.
    public func page(
        after: Int64,
        limit: Int,
        filter: EventFilter,
        on connection: Connection
    ) async throws -> ExportPage {
        let limit = min(max(limit, 1), Self.maximumExportPage)
        let results: [QueryResult]
        do {
            results = try await self.readPage(after: after, limit: limit, filter: filter, on: connection)
        } catch {
            await connection.rollbackQuietly()
            throw error
        }
        guard results.count == 4, let headRow = results[1].first else {
            throw StoreError(.schema, "authlog.log_head has no row")
        }
        let head = try headRow.decode(Int64.self, at: 0)
        guard after <= head else {
            throw StoreError(.outOfRange, "the log ends at position \(head); the cursor \(after) lies beyond it")
        }
        let events = try results[2].rows.map { row -> (position: Int64, json: String) in
            (try row.decode(Int64.self, at: 0), try row.decode(String.self, at: 1))
        }
        let next = events.count == limit ? events[events.count - 1].position : head
        return ExportPage(events: events, next: next, head: head)
    }

    /// The head and the page, in one snapshot and one round trip.
    ///
    /// Not ``Connection/withTransaction(_:_:)``: BEGIN, the two reads and COMMIT go in one pipeline, which
    /// the scoped form would split into three round trips; ``page(after:limit:filter:on:)`` rolls back on a throw.
    private func readPage(
        after: Int64,
        limit: Int,
        filter: EventFilter,
        on connection: Connection
    ) async throws -> [QueryResult] {
        try await connection.pipeline([
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
            "SELECT size FROM authlog.log_head",
            """
            SELECT e.position, \(unescaped: EventRow.exportLine) FROM authlog.events e
            WHERE position > \(after)
              AND (\(filter.type?.rawValue)::text IS NULL OR type = \(filter.type?.rawValue))
              AND (\(filter.userID)::uuid IS NULL OR user_id = \(filter.userID))
              AND (\(filter.provider)::text IS NULL OR provider = \(filter.provider))
            ORDER BY position LIMIT \(limit)
            """,
            "COMMIT",
        ])
    }
}
