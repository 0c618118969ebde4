extension Connection {
    /// Runs `body` inside one transaction, on the connection's own thread: BEGIN (with `options`), the
    /// body, then COMMIT (or ROLLBACK with ``TransactionOptions/discardsChanges``). When the body throws,
    /// the transaction is rolled back and the body's error is rethrown unchanged.
    /// - Parameters:
    ///   - options: the isolation level, read-only, and whether the transaction ends with ROLLBACK.
    ///   - body: the work, given the connection isolated.
    /// - Returns: what `body` returned.
    /// - Throws: what `body` throws; ``StoreError`` when BEGIN or COMMIT fails; ``TransactionError`` when
    ///   the body threw and the ROLLBACK failed as well.
    public func withTransaction<T: Sendable>(
        _ options: TransactionOptions = .readWrite,
        _ body: @Sendable (isolated Connection) throws -> T
    ) throws -> T {
        try self.execute(options.beginStatement)
        let value: T
        do {
            value = try body(self)
        } catch {
            throw self.rollingBack(after: error)
        }
        try self.end(options)
        return value
    }

    /// Runs `body` inside one transaction: BEGIN (with `options`), the body, then COMMIT (or ROLLBACK with
    /// ``TransactionOptions/discardsChanges``). When the body throws, the transaction is rolled back and the
    /// body's error is rethrown unchanged. The body must run its statements on this connection and no other
    /// task may use the connection meanwhile (as with any connection taken from the pool).
    /// - Parameters:
    ///   - options: the isolation level, read-only, and whether the transaction ends with ROLLBACK.
    ///   - body: the work, given this connection.
    /// - Returns: what `body` returned.
    /// - Throws: what `body` throws; ``StoreError`` when BEGIN or COMMIT fails; ``TransactionError`` when
    ///   the body threw and the ROLLBACK failed as well.
    public nonisolated func withTransaction<T>(
        _ options: TransactionOptions = .readWrite,
        _ body: (Connection) async throws -> T
    ) async throws -> T {
        try await self.execute(options.beginStatement)
        let value: T
        do {
            value = try await body(self)
        } catch {
            throw await self.rollingBack(after: error)
        }
        try await self.end(options)
        return value
    }

    /// COMMIT, or ROLLBACK when the options discard the changes (a failure of which is ignored).
    private func end(_ options: TransactionOptions) throws {
        if options.discardsChanges {
            self.rollbackQuietly()
        } else {
            try self.execute("COMMIT")
        }
    }

    /// Rolls back after the body threw `error`, and returns the error to throw: the body's own, or a
    /// ``TransactionError`` with both when the ROLLBACK failed. Nothing is sent when no transaction is open
    /// (a broken connection, whose transaction the server has ended).
    private func rollingBack(after error: any Error) -> any Error {
        guard self.isInTransaction else { return error }
        do {
            try self.execute("ROLLBACK")
            return error
        } catch let rollbackError {
            return TransactionError(bodyError: error, rollbackError: rollbackError)
        }
    }
}
