public import AuthlogCore
import Foundation
public import Logging

/// Records `session.expired` for active sessions past their absolute or idle lifetime, in bounded batches,
/// so that `active_sessions` and the dashboards tell the truth. Each append expects the session stream's
/// version it read, so a session expires exactly once even with several processes sweeping (the loser's
/// command fails alone), and a refresh that lands first keeps the session alive.
public struct SessionSweeper: Sendable {
    let store: any EventStore
    let queries: any SessionExpiryReads
    let lifetimes: SessionLifetimes

    /// Creates a sweeper over `store`, finding sessions with `expiry`, with the configured lifetimes.
    public init(store: any EventStore, expiry: any SessionExpiryReads, lifetimes: SessionLifetimes) {
        self.store = store
        self.queries = expiry
        self.lifetimes = lifetimes
    }

    /// Expires the sessions past a limit at `now`, `batchSize` at a time, until none is left; returns how
    /// many this call expired.
    /// - Throws: ``StoreError`` when the database fails.
    @discardableResult
    public func sweep(at now: Timestamp = .now(), batchSize: Int = 500) async throws -> Int {
        var expired = 0
        let metadata = RequestMetadata(requestID: "session-sweep-\(UUID.version7().lowercased)")
        while true {
            let due = try await self.queries.due(at: now, lifetimes: self.lifetimes, limit: batchSize)
            guard !due.isEmpty else { return expired }
            var commands: [AppendCommand] = []
            for item in due {
                let session = item.session
                let event = try metadata.envelope(
                    stream: .session(session.sessionID),
                    reason: item.limit.rawValue,
                    provider: session.provider,
                    userID: session.userID,
                    sessionID: session.sessionID,
                    at: now,
                    data: SessionExpired(limit: item.limit)
                )
                commands.append(AppendCommand(event, expecting: .exactly(item.version)))
            }
            let results = await self.store.appendEach(commands)
            let succeeded = results.filter { (try? $0.get()) != nil }.count
            expired += succeeded
            // A batch in which every command lost its race would be found again: stop rather than spin.
            if succeeded == 0 || due.count < batchSize { return expired }
        }
    }

    /// Runs ``sweep(at:batchSize:)`` once, logging what it did (`serve`'s background pass, every minute).
    public func sweepOnce(logger: Logger) async {
        do {
            let expired = try await self.sweep()
            if expired > 0 { logger.info("expired sessions", metadata: ["count": .stringConvertible(expired)]) }
        } catch {
            logger.warning("could not expire sessions", metadata: ["error": .string("\(error)")])
        }
    }
}
