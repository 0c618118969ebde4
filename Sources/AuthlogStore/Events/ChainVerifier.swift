import AuthlogCore
import AuthlogCrypto

/// Walks the whole log in position order and recomputes the hash chain.
///
/// Detects an edited event (its hash no longer matches), a deleted one (a gap in positions, or a head
/// beyond the last row), an inserted one (a row beyond the head) and reordered ones (the position is part
/// of the hashed bytes, and each `prev_hash` must equal the previous event's hash).
public struct ChainVerifier: Sendable {
    /// What the walk found.
    public enum Report: Sendable, Equatable {
        /// Every event checked out; `events` were checked and the head matches.
        case intact(events: Int64, headHash: [UInt8])
        /// The first position at which the chain breaks, and why.
        case broken(position: Int64, reason: String)
    }

    /// Events read per query.
    public var pageSize: Int

    /// Creates a verifier reading `pageSize` events per query.
    public init(pageSize: Int = 5000) {
        self.pageSize = pageSize
    }

    /// Verifies the chain; `progress` is called after each page with the last position checked.
    /// - Throws: ``StoreError`` when the database cannot be read (a broken chain is a report, not an error).
    public func verify(
        on connection: Connection,
        progress: @Sendable (Int64) -> Void = { _ in }
    ) async throws -> Report {
        try await connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let report = try await self.walk(on: connection, progress: progress)
            await connection.rollbackQuietly()
            return report
        } catch {
            await connection.rollbackQuietly()
            throw error
        }
    }

    private func walk(on connection: Connection, progress: @Sendable (Int64) -> Void) async throws -> Report {
        let reader = EventReader()
        let head = try await reader.head(on: connection)
        var expected: Int64 = 1
        var previousHash = CanonicalEventEncoding.genesisHash
        while true {
            let page: [RecordedEvent]
            do {
                page = try await reader.events(after: expected - 1, limit: self.pageSize, on: connection)
            } catch let error as StoreError where error.code == .decoding {
                return .broken(position: expected, reason: error.message)
            }
            for event in page {
                if let problem = Self.check(event, expected: expected, previousHash: previousHash, head: head.position)
                {
                    return .broken(position: problem.position, reason: problem.reason)
                }
                previousHash = event.hash
                expected += 1
            }
            progress(expected - 1)
            if page.count < self.pageSize { break }
        }
        let last = expected - 1
        if head.position > last {
            return .broken(
                position: last + 1,
                reason: "missing: the chain head is at \(head.position) but the log ends at \(last)"
            )
        }
        if head.hash != previousHash {
            return .broken(position: last, reason: "the chain head's hash differs from the last event's hash")
        }
        return .intact(events: last, headHash: previousHash)
    }

    private static func check(
        _ event: RecordedEvent,
        expected: Int64,
        previousHash: [UInt8],
        head: Int64
    ) -> (position: Int64, reason: String)? {
        if event.position != expected {
            return (expected, "missing: event \(expected) is absent (the next stored position is \(event.position))")
        }
        if event.position > head {
            return (event.position, "inserted: the event lies beyond the chain head at \(head)")
        }
        if event.prevHash != previousHash {
            return (event.position, "prev_hash does not match the hash of event \(expected - 1)")
        }
        let bytes = CanonicalEventEncoding.bytes(
            position: event.position,
            envelope: event.envelope,
            recordedAt: event.recordedAt
        )
        if SHA256.hash(previousHash, bytes) != event.hash {
            return (event.position, "hash does not match the event's contents")
        }
        return nil
    }
}
