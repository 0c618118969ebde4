import AuthlogCore
public import AuthlogPostgres

/// The months of the log (migration 8): `authlog.event_records` and `authlog.log_leaves` have one partition per
/// month, and every event belongs to the month of `authlog.log_epoch` when it was written.
///
/// Writers stamp the epoch while holding ``writerLock``, a shared advisory lock. ``prepare(monthsAhead:on:)``
/// moves the epoch to a new month only under the same lock taken exclusively, after sealing every queued event
/// in that transaction: so no event of an older month commits after the move, every queued event has the
/// current month (the sealer stamps leaves with it), and each month holds one contiguous range of positions.
public enum LogMonths {
    /// The call that takes the lock, which each writer transaction makes in its first statement (before its
    /// lookup, so that the lookup's snapshot sees every event of an earlier month).
    static let writerLock = "pg_advisory_xact_lock_shared(authlog.log_month_lock_key())"

    /// The SQL expression of the current month, evaluated once per statement.
    static let currentMonth = "(SELECT month FROM authlog.log_epoch)"

    /// Creates the partitions of the current month and the `monthsAhead` next ones when missing, and moves
    /// the log to the current month when a new one has begun. Returns the log's month (`YYYY-MM-01`).
    /// `serve` runs it every minute and `migrate` once; both may run at once in several processes. Moving the
    /// month seals what is queued, so it takes the event key (`authenticator`) of a log that has one.
    /// - Throws: ``StoreError`` from the server (a missing privilege, say).
    @discardableResult
    public static func prepare(
        monthsAhead: Int = 2,
        authenticator: EventAuthenticator? = nil,
        on connection: isolated Connection
    ) throws -> String {
        let ahead = min(max(monthsAhead, 1), 24)
        try connection.query(
            """
            SELECT authlog.create_log_partitions(
                (SELECT month FROM authlog.log_epoch),
                (date_trunc('month', now()) + make_interval(months => \(ahead)))::date)
            """
        )
        let due = try connection.query(
            "SELECT month::text, month < date_trunc('month', now())::date FROM authlog.log_epoch"
        )
        guard let row = due.first else { throw StoreError(.schema, "authlog.log_epoch has no row") }
        guard try row.decode(Bool.self, at: 1) else { return try row.decode(String.self, at: 0) }
        let moved = try connection.withTransaction { connection in
            try connection.query("SELECT pg_advisory_xact_lock(authlog.log_month_lock_key())")
            while try SealStep.run(ownsTransaction: false, authenticator: authenticator, on: connection).isEmpty
                == false
            {}
            return try connection.query("SELECT authlog.advance_log_month()::text")
        }
        return try moved.first?.decode(String.self, at: 0) ?? ""
    }

    /// ``prepare(monthsAhead:on:)`` on a connection of `pool`: what `serve`'s upkeep runs every minute.
    /// - Throws: ``StoreError`` when the database cannot be reached or refuses.
    @discardableResult
    public static func prepare(
        monthsAhead: Int = 2,
        authenticator: EventAuthenticator? = nil,
        using pool: ConnectionPool
    ) async throws -> String {
        try await pool.withConnection { connection in
            try await Self.prepare(monthsAhead: monthsAhead, authenticator: authenticator, on: connection)
        }
    }

    /// One month's sealed events: how many, their positions, and how many were committed in it.
    public struct Span: Sendable, Equatable {
        /// Sealed events of the month, and their first and last positions (0 and 0 without events).
        public var events: Int64
        public var firstPosition: Int64
        public var lastPosition: Int64
        /// Events committed in the month, sealed or not.
        public var records: Int64
        /// Whether the month is over: the log has moved past it, so it gains no more events.
        public var hasEnded: Bool
    }

    /// The span of the month that begins on `firstDay` (`YYYY-MM-01`); what `authlog export --month` writes
    /// and retention checks.
    /// - Throws: ``StoreError`` from the server.
    public static func span(of firstDay: String, on connection: Connection) async throws -> Span {
        let result = try await connection.query(
            """
            SELECT count(*), coalesce(min(position), 0), coalesce(max(position), 0),
                   (SELECT count(*) FROM authlog.event_records WHERE log_month = \(firstDay)::date),
                   \(firstDay)::date < (SELECT month FROM authlog.log_epoch)
            FROM authlog.log_leaves WHERE log_month = \(firstDay)::date
            """
        )
        guard let row = result.first else { throw StoreError(.schema, "the month \(firstDay) could not be counted") }
        return Span(
            events: try row.decode(Int64.self, at: 0),
            firstPosition: try row.decode(Int64.self, at: 1),
            lastPosition: try row.decode(Int64.self, at: 2),
            records: try row.decode(Int64.self, at: 3),
            hasEnded: try row.decode(Bool.self, at: 4)
        )
    }

    /// The log's current month (`YYYY-MM-01`).
    public static func current(on connection: isolated Connection) throws -> String {
        let result = try connection.query("SELECT month::text FROM authlog.log_epoch")
        guard let month = try result.first?.decode(String.self, at: 0) else {
            throw StoreError(.schema, "authlog.log_epoch has no row")
        }
        return month
    }
}
