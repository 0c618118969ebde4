import AuthlogCore
public import AuthlogPostgres

/// The rule that keeps every writer of a log on its event key: once the log's events are authenticated (the
/// head holds the key's id), a process without that key is refused before it writes or seals anything, with
/// a sentence that says what to configure.
public enum EventKeyCheck {
    /// Throws unless `authenticator` may write to a log whose event key id is `logKeyID` (nil: none yet).
    /// - Throws: ``StoreError`` `.eventKey`.
    public static func require(logKeyID: [UInt8]?, authenticator: EventAuthenticator?) throws {
        guard let logKeyID else { return }
        guard let authenticator else {
            throw StoreError(
                .eventKey,
                "this log authenticates its events (event key \(Hex.encode(logKeyID))): give this process the "
                    + "event key (AUTHLOG_EVENT_KEY or log.event_key)"
            )
        }
        guard authenticator.keyID == logKeyID else {
            throw StoreError(
                .eventKey,
                "this process's event key (\(Hex.encode(authenticator.keyID))) is not the one the log's events are "
                    + "authenticated with (\(Hex.encode(logKeyID)))"
            )
        }
    }

    /// Checks this process's key against the log's now (serve does at start).
    /// - Throws: ``StoreError`` `.eventKey`, or from the database.
    public static func check(_ authenticator: EventAuthenticator?, pool: ConnectionPool) async throws {
        let rows = try await pool.withConnection { try await $0.query("SELECT event_key_id FROM authlog.log_head") }
        try self.require(logKeyID: try rows.first?.decode(ByteaValue?.self, at: 0)?.bytes, authenticator: authenticator)
    }
}
