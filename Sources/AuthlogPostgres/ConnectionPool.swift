/// A small pool of ``Connection``s to one database.
///
/// Connections are opened on demand up to ``maximumConnections``. An idle connection is checked without
/// blocking before it is handed out (``Connection/checkIdleLiveness()``); when one is found broken (the
/// server restarted or ended the session), every idle connection is checked and the broken ones are
/// closed, so the first request after PostgreSQL comes back gets a working connection. A connection that
/// breaks while in use is dropped when it is returned.
public actor ConnectionPool {
    /// How connections are opened.
    public nonisolated let conninfo: String
    /// The most connections open at once.
    public nonisolated let maximumConnections: Int

    private var idle: [Connection] = []
    private var openCount = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Creates a pool; nothing connects until the first request.
    public init(conninfo: String, maximumConnections: Int = 8) {
        precondition(maximumConnections > 0, "a pool needs at least one connection")
        self.conninfo = conninfo
        self.maximumConnections = maximumConnections
    }

    /// Takes a connection, opening one when none is idle, waiting when the pool is full.
    /// - Throws: ``StoreError`` `.connectionFailed` when a new connection cannot be opened.
    public func acquire() async throws -> Connection {
        while true {
            if let connection = self.idle.popLast() {
                if await connection.checkIdleLiveness() { return connection }
                self.openCount -= 1
                await self.closeBrokenIdleConnections()
                continue
            }
            if self.openCount < self.maximumConnections {
                self.openCount += 1
                do {
                    return try await Connection.connect(self.conninfo)
                } catch {
                    self.openCount -= 1
                    self.wakeOne()
                    throw error
                }
            }
            await withCheckedContinuation { self.waiters.append($0) }
        }
    }

    /// Returns a connection taken with ``acquire()``; a broken one is closed instead of kept.
    public func release(_ connection: Connection) async {
        if await connection.isHealthy, await !connection.isInTransaction {
            self.idle.append(connection)
        } else {
            self.openCount -= 1
        }
        self.wakeOne()
    }

    /// Checks every idle connection and closes the broken ones: when one broke while idle, the others
    /// usually broke with it (a restarted server ends every session at once).
    private func closeBrokenIdleConnections() async {
        let candidates = self.idle
        self.idle.removeAll()
        var kept: [Connection] = []
        for connection in candidates {
            if await connection.checkIdleLiveness() {
                kept.append(connection)
            } else {
                self.openCount -= 1
            }
        }
        // Connections released while this ran were appended meanwhile; keep them too.
        self.idle.append(contentsOf: kept)
        for _ in 0..<(candidates.count - kept.count) { self.wakeOne() }
    }

    private func wakeOne() {
        if !self.waiters.isEmpty {
            self.waiters.removeFirst().resume()
        }
    }
}

extension ConnectionPool {
    /// Runs `body` with a connection from the pool and returns the connection afterwards.
    /// - Throws: what `acquire()` or `body` throws.
    public func withConnection<T: Sendable>(_ body: (Connection) async throws -> T) async throws -> T {
        let connection = try await self.acquire()
        do {
            let value = try await body(connection)
            await self.release(connection)
            return value
        } catch {
            await self.release(connection)
            throw error
        }
    }
}
