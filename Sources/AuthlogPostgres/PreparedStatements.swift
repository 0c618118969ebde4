/// Which statements a connection has prepared on the server, by SQL text.
///
/// Parsing and planning were about a third of PostgreSQL's CPU time on the sign-in service's refresh
/// path (`authlog-bench service`, perf); a prepared statement is parsed once per connection and its plan
/// can be reused. A text is prepared the second time it is seen, so statements whose text varies from
/// call to call are never kept; at most ``limit`` are kept per connection.
///
/// A prepared statement's generic plan is made once, from the statistics of the moment, and kept until a
/// relation it reads is analysed. Made while a table was small (a fresh database, the first minutes of a
/// deployment) it can keep a sequential scan that reads the whole table on every execution as the table
/// grows. So after ``replanAfterExecutions`` executions the connection deallocates every statement and
/// prepares them again (``isDueForReplanning``), which plans them against the tables as they are now.
struct PreparedStatements {
    /// The most statements prepared on one connection.
    static let limit = 256
    /// How many executions of prepared statements a connection runs before it prepares them afresh.
    static let replanAfterExecutions = 10_000

    /// How to send one statement.
    enum Plan {
        /// Send as an unnamed statement (parsed and planned every time).
        case unnamed
        /// Prepare it under this name first, then execute it.
        case prepareThenExecute(String)
        /// Execute the statement prepared under this name.
        case execute(String)
    }

    private var names: [String: String] = [:]
    private var seenOnce: Set<String> = []
    private var counter = 0
    private var executionsSinceReplanning = 0

    /// Whether the connection should deallocate its statements (and call ``didDeallocateAll()``) before
    /// running the next one.
    var isDueForReplanning: Bool { self.executionsSinceReplanning >= Self.replanAfterExecutions }

    /// Forgets every statement after the server deallocated them all.
    mutating func didDeallocateAll() {
        self.names.removeAll()
        self.seenOnce.removeAll()
        self.executionsSinceReplanning = 0
    }

    /// How to send `sql` now.
    mutating func plan(for sql: String) -> Plan {
        if let name = self.names[sql] {
            self.executionsSinceReplanning += 1
            return .execute(name)
        }
        guard self.names.count < Self.limit else { return .unnamed }
        guard self.seenOnce.remove(sql) != nil else {
            if self.seenOnce.count >= 4 * Self.limit { self.seenOnce.removeAll() }
            self.seenOnce.insert(sql)
            return .unnamed
        }
        self.counter += 1
        return .prepareThenExecute("authlog_\(self.counter)")
    }

    /// Records that the server accepted `sql` under `name`.
    mutating func didPrepare(_ sql: String, as name: String) { self.names[sql] = name }
}
