/// How ``Connection/withTransaction(_:_:)`` opens and ends its transaction.
public struct TransactionOptions: Sendable, Equatable {
    /// A transaction isolation level, as `BEGIN ISOLATION LEVEL …` spells it.
    public enum IsolationLevel: String, Sendable {
        /// Each statement sees what was committed before it started (PostgreSQL's default).
        case readCommitted = "READ COMMITTED"
        /// Every statement sees one snapshot, taken at the first statement.
        case repeatableRead = "REPEATABLE READ"
        /// As if the transactions ran one after another; conflicts fail with SQLSTATE 40001.
        case serializable = "SERIALIZABLE"
    }

    /// The isolation level; `nil` keeps the session's default.
    public var isolationLevel: IsolationLevel?
    /// Whether the transaction refuses writes (`READ ONLY`).
    public var isReadOnly: Bool
    /// Whether the transaction ends with ROLLBACK even when the body succeeds: for a snapshot read or a dry
    /// run whose temporary tables must go with it. A failing ROLLBACK on that path is not an error, since the
    /// server discards the transaction with the session anyway.
    public var discardsChanges: Bool

    /// Creates options; the defaults are a plain read-write `BEGIN` that commits.
    public init(isolationLevel: IsolationLevel? = nil, isReadOnly: Bool = false, discardsChanges: Bool = false) {
        self.isolationLevel = isolationLevel
        self.isReadOnly = isReadOnly
        self.discardsChanges = discardsChanges
    }

    /// A plain read-write transaction that commits.
    public static let readWrite = TransactionOptions()

    /// One consistent, read-only snapshot (`REPEATABLE READ READ ONLY`) that commits.
    public static let readOnlySnapshot = TransactionOptions(isolationLevel: .repeatableRead, isReadOnly: true)

    /// The statement that opens the transaction.
    var beginStatement: SQLQuery {
        var text = "BEGIN"
        if let isolationLevel = self.isolationLevel { text += " ISOLATION LEVEL \(isolationLevel.rawValue)" }
        if self.isReadOnly { text += " READ ONLY" }
        return SQLQuery(unsafeSQL: text)
    }
}
