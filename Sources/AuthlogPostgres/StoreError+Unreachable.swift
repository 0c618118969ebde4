public import AuthlogCore

extension StoreError: StoreFailure {
    /// Whether this failure means PostgreSQL cannot be reached: the connection failed or broke, the server
    /// is shutting down or starting (SQLSTATE 57P01–57P03), refuses connections or is out of resources
    /// (class 08, class 53).
    public var meansStoreUnreachable: Bool {
        if self.code == .connectionFailed { return true }
        guard self.code == .server, let state = self.sqlState else { return false }
        return state.hasPrefix("08") || state.hasPrefix("53") || ["57P01", "57P02", "57P03"].contains(state)
    }

    /// The code and the SQLSTATE, for the server's log.
    public var logDetail: String { "\(self.code) \(self.sqlState ?? "")" }
}
