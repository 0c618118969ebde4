/// A store's error that can tell the rules whether it means the store cannot be reached, which they answer
/// with 503 (the action is not done: fail closed) rather than 500.
public protocol StoreFailure: Error {
    /// Whether the store cannot be reached (connection failed or broke, server shutting down or out of
    /// resources).
    var meansStoreUnreachable: Bool { get }
    /// The kind of failure for the server's log, with no bound values or row data.
    var logDetail: String { get }
}
