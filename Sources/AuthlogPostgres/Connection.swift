internal import CLibPQ
import Foundation

/// One libpq connection. Every call runs on the connection's own thread (``ThreadExecutor``), so that
/// blocking libpq calls never occupy Swift's cooperative pool.
///
/// Sessions are set to UTC and the ISO date style, so timestamps read back exactly as they were written.
public actor Connection {
    private let executor: ThreadExecutor
    private var handle: OpaquePointer?  // <PGconn>, owned; freed in deinit
    private var prepared = PreparedStatements()

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        self.executor.asUnownedSerialExecutor()
    }

    private init() {
        self.executor = ThreadExecutor(name: "authlog-libpq")
    }

    isolated deinit {
        if let handle = self.handle { PQfinish(handle) }
        self.executor.stop()
    }

    /// Opens a connection; `conninfo` is a `postgresql://` URL or `key=value` pairs, and anything it leaves
    /// out comes from libpq's `PG*` environment variables.
    /// - Throws: ``StoreError`` `.connectionFailed` with libpq's message (which never contains the password).
    public static func connect(_ conninfo: String) async throws -> Connection {
        let connection = Connection()
        try await connection.open(conninfo)
        return connection
    }

    private func open(_ conninfo: String) throws {
        let handle = PQconnectdb(conninfo)
        self.handle = handle
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let message = handle.map { Self.libpqMessage($0) } ?? "out of memory"
            throw StoreError(.connectionFailed, "cannot connect to PostgreSQL: \(message)")
        }
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        _ = try self.execute("SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'iso_8601'")
    }

    /// Whether the connection is still usable.
    public var isHealthy: Bool {
        guard let handle = self.handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Whether an idle connection is still usable, found without blocking: the socket is polled, and whatever
    /// the server sent meanwhile is read. A server that restarted or ended the session has sent its FATAL
    /// message and closed the socket, which marks the connection broken here instead of failing the next
    /// statement. Pending notices and parameter changes are consumed; a connection that is merely quiet
    /// counts as usable.
    public func checkIdleLiveness() -> Bool {
        guard let handle = self.handle, PQstatus(handle) == CONNECTION_OK else { return false }
        let socket = PQsocket(handle)
        guard socket >= 0 else { return false }
        // Each round reads what is there; a dying server's last message and its end-of-file may arrive
        // in separate reads. The bound only guards against a server that never stops talking.
        for _ in 0..<16 {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 0)
            if ready == 0 { return true }
            if ready < 0 {
                if errno == EINTR { continue }
                return false
            }
            if descriptor.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return false }
            guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else { return false }
            // Parse what arrived (notices, notifications, parameter changes) so it does not pile up; nobody
            // here listens for notifications, so they are dropped.
            while PQisBusy(handle) == 0, let result = PQgetResult(handle) { PQclear(result) }
            while let notification = PQnotifies(handle) { PQfreemem(notification) }
        }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Whether a transaction is open (or failed and awaiting ROLLBACK).
    public var isInTransaction: Bool {
        guard let handle = self.handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Runs one statement with its parameters and returns its rows.
    /// - Throws: ``StoreError`` with the SQLSTATE for server errors, `.connectionFailed` when the link broke.
    @discardableResult
    public func query(_ query: SQLQuery) throws -> QueryResult {
        guard let handle = self.handle else { throw StoreError(.connectionFailed, "the connection is closed") }
        try self.replanIfDue(handle)
        let count = Int32(query.binds.count)
        let name = try self.statementName(for: query.sql) { fresh in
            _ = try self.consume(PQprepare(handle, fresh, query.sql, count, nil), handle: handle)
            self.prepared.didPrepare(query.sql, as: fresh)
        }
        let result: OpaquePointer? = Self.withCStrings(query.binds) { values in
            if let name { return PQexecPrepared(handle, name, count, values, nil, nil, 0) }
            return PQexecParams(handle, query.sql, count, nil, values, nil, nil, 0)
        }
        return try self.consume(result, handle: handle)
    }

    /// Runs one or more statements without parameters (migrations, session settings).
    /// - Throws: ``StoreError`` as ``query(_:)`` does.
    @discardableResult
    public func execute(_ script: SQLQuery) throws -> QueryResult {
        precondition(script.binds.isEmpty, "execute(_:) takes no parameters; use query(_:)")
        guard let handle = self.handle else { throw StoreError(.connectionFailed, "the connection is closed") }
        return try self.consume(PQexec(handle, script.sql), handle: handle)
    }

    /// Runs `COPY … TO STDOUT` and hands each row's bytes to `row` as they arrive; returns the number of rows.
    /// For bulk reads (the export benchmark's baseline, archives).
    /// - Throws: ``StoreError`` as ``query(_:)`` does.
    @discardableResult
    public func copyOut(_ statement: SQLQuery, row: (UnsafeRawBufferPointer) -> Void) throws -> Int {
        precondition(statement.binds.isEmpty, "copyOut(_:) takes no parameters")
        guard let handle = self.handle else { throw StoreError(.connectionFailed, "the connection is closed") }
        guard let started = PQexec(handle, statement.sql) else {
            throw StoreError(.connectionFailed, "cannot send COPY: \(Self.libpqMessage(handle))")
        }
        guard PQresultStatus(started) == PGRES_COPY_OUT else {
            return try self.consume(started, handle: handle).rows.count
        }
        PQclear(started)
        var rows = 0
        var buffer: UnsafeMutablePointer<CChar>?
        while true {
            let length = PQgetCopyData(handle, &buffer, 0)
            if length < 0 { break }
            if let bytes = buffer {
                row(UnsafeRawBufferPointer(start: bytes, count: Int(length)))
                PQfreemem(bytes)
                buffer = nil
            }
            rows += 1
        }
        // The COPY's own result (or its error), then nothing.
        var failure: StoreError?
        while let result = PQgetResult(handle) {
            if PQresultStatus(result) != PGRES_COMMAND_OK, failure == nil {
                failure = Self.error(from: result, handle: handle)
            }
            PQclear(result)
        }
        if let failure { throw failure }
        return rows
    }

    /// Sends every statement at once in libpq's pipeline mode and reads the results after one sync:
    /// one round trip for the lot. Statements after a failed one are not run.
    /// - Throws: the first statement's error, as ``query(_:)`` would.
    @discardableResult
    public func pipeline(_ queries: [SQLQuery]) throws -> [QueryResult] {
        guard let handle = self.handle else { throw StoreError(.connectionFailed, "the connection is closed") }
        try self.replanIfDue(handle)
        guard PQenterPipelineMode(handle) == 1 else {
            throw StoreError(.connectionFailed, "cannot enter pipeline mode: \(Self.libpqMessage(handle))")
        }
        var firstError: StoreError?
        let expected = self.send(queries, handle: handle, firstError: &firstError)
        if PQpipelineSync(handle) != 1, firstError == nil {
            firstError = StoreError(.connectionFailed, "cannot sync the pipeline: \(Self.libpqMessage(handle))")
        }
        let results = self.readResults(expected, handle: handle, firstError: &firstError)
        while PQstatus(handle) == CONNECTION_OK, let result = PQgetResult(handle) {
            let isSync = PQresultStatus(result) == PGRES_PIPELINE_SYNC
            PQclear(result)
            if isSync { break }
        }
        if PQexitPipelineMode(handle) != 1, firstError == nil {
            firstError = StoreError(.connectionFailed, "cannot leave pipeline mode: \(Self.libpqMessage(handle))")
        }
        if let firstError { throw firstError }
        return results
    }

    /// Sends `queries` into the pipeline, preparing a statement's text where it is due, until one cannot be
    /// sent (its error goes in `firstError`). Returns one entry per result to read: a statement's (nil), or a
    /// preparation's (name and text) to confirm.
    private func send(
        _ queries: [SQLQuery],
        handle: OpaquePointer,
        firstError: inout StoreError?
    ) -> [(name: String, sql: String)?] {
        var expected: [(name: String, sql: String)?] = []
        for query in queries {
            let count = Int32(query.binds.count)
            let name: String?
            do {
                name = try self.statementName(for: query.sql) { fresh in
                    guard PQsendPrepare(handle, fresh, query.sql, count, nil) == 1 else {
                        throw StoreError(.connectionFailed, "cannot send a statement: \(Self.libpqMessage(handle))")
                    }
                    expected.append((fresh, query.sql))
                }
            } catch {
                firstError = (error as? StoreError) ?? StoreError(.connectionFailed, "cannot send a statement")
                break
            }
            let accepted = Self.withCStrings(query.binds) { values in
                if let name { return PQsendQueryPrepared(handle, name, count, values, nil, nil, 0) }
                return PQsendQueryParams(handle, query.sql, count, nil, values, nil, nil, 0)
            }
            guard accepted == 1 else {
                firstError = StoreError(.connectionFailed, "cannot send a statement: \(Self.libpqMessage(handle))")
                break
            }
            expected.append(nil)
        }
        return expected
    }

    /// Reads the results `expected` announces, in order: records each confirmed preparation and keeps each
    /// statement's rows, noting the first failure in `firstError`. Stops when the connection is lost.
    private func readResults(
        _ expected: [(name: String, sql: String)?],
        handle: OpaquePointer,
        firstError: inout StoreError?
    ) -> [QueryResult] {
        var results: [QueryResult] = []
        for preparation in expected {
            var rows = QueryResult(columns: [], cells: [], affectedRows: 0)
            while let result = PQgetResult(handle) {
                switch PQresultStatus(result) {
                case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
                    if let preparation {
                        self.prepared.didPrepare(preparation.sql, as: preparation.name)
                    } else {
                        rows = Self.copyRows(result)
                    }
                case PGRES_PIPELINE_ABORTED:
                    break
                default:
                    if firstError == nil { firstError = Self.error(from: result, handle: handle) }
                }
                PQclear(result)
            }
            if preparation == nil { results.append(rows) }
            if PQstatus(handle) != CONNECTION_OK { break }
        }
        return results
    }

    /// Deallocates every prepared statement when ``PreparedStatements/isDueForReplanning``, between
    /// transactions only, so that the next executions plan against the tables as they are now.
    private func replanIfDue(_ handle: OpaquePointer) throws {
        guard self.prepared.isDueForReplanning, PQtransactionStatus(handle) == PQTRANS_IDLE else { return }
        _ = try self.consume(PQexec(handle, "DEALLOCATE ALL"), handle: handle)
        self.prepared.didDeallocateAll()
    }

    /// The prepared statement to run `sql` as, after `prepare` has prepared it under a fresh name when
    /// this is the text's second sighting; `nil` runs it as an unnamed statement.
    private func statementName(for sql: String, prepare: (String) throws -> Void) rethrows -> String? {
        switch self.prepared.plan(for: sql) {
        case .unnamed: return nil
        case .execute(let name): return name
        case .prepareThenExecute(let name):
            try prepare(name)
            return name
        }
    }

    /// Sends ROLLBACK when a transaction is open, ignoring failures (the link may be gone).
    public func rollbackQuietly() {
        guard self.isInTransaction else { return }
        _ = try? self.execute("ROLLBACK")
    }

    private func consume(_ result: OpaquePointer?, handle: OpaquePointer) throws -> QueryResult {
        guard let result else {
            throw StoreError(.connectionFailed, "PostgreSQL did not answer: \(Self.libpqMessage(handle))")
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return Self.copyRows(result)
        default:
            throw Self.error(from: result, handle: handle)
        }
    }

    private static func error(from result: OpaquePointer, handle: OpaquePointer) -> StoreError {
        if PQstatus(handle) != CONNECTION_OK {
            return StoreError(.connectionFailed, "the connection to PostgreSQL broke: \(Self.libpqMessage(handle))")
        }
        let primary = Self.field(result, "M") ?? "unknown server error"
        let sqlState = Self.field(result, "C")
        // Class 08 (connection exception) and 57P (the server shutting down or ending the session) mean the
        // connection is gone even when libpq has not read the end of the stream yet.
        if let sqlState, sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") {
            return StoreError(.connectionFailed, "the connection to PostgreSQL broke: \(primary)", sqlState: sqlState)
        }
        return StoreError(.server, primary, sqlState: sqlState, detail: Self.field(result, "D"))
    }

    private static func copyRows(_ result: OpaquePointer) -> QueryResult {
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        var columns: [String] = []
        columns.reserveCapacity(Int(columnCount))
        for column in 0..<columnCount {
            columns.append(PQfname(result, column).map { String(cString: $0) } ?? "")
        }
        var cells: [[String?]] = []
        cells.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                if PQgetisnull(result, row, column) == 1 {
                    values.append(nil)
                } else if let value = PQgetvalue(result, row, column) {
                    // libpq knows the length: no strlen over every cell.
                    let length = Int(PQgetlength(result, row, column))
                    values.append(
                        value.withMemoryRebound(to: UInt8.self, capacity: length) {
                            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                        }
                    )
                } else {
                    values.append(nil)
                }
            }
            cells.append(values)
        }
        let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
        return QueryResult(columns: columns, cells: cells, affectedRows: affected)
    }

    private static func field(_ result: OpaquePointer, _ code: Unicode.Scalar) -> String? {
        PQresultErrorField(result, Int32(code.value)).map { String(cString: $0) }
    }

    private static func libpqMessage(_ handle: OpaquePointer) -> String {
        guard let message = PQerrorMessage(handle) else { return "no message" }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func withCStrings<R>(
        _ strings: [String?],
        _ body: ([UnsafePointer<CChar>?]) -> R
    ) -> R {
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}
