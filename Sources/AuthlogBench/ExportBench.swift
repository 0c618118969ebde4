import ArgumentParser
import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogProviders
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation

/// `authlog-bench export`: sealed events per second through `GET /v1/events`, against `COPY … TO STDOUT` of
/// the same rows in the same run.
struct ExportBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Measure events/s exported over HTTP against COPY TO STDOUT of the same rows.",
        discussion: """
            Fills a fresh database of the given cluster with sealed sign-in events, starts authlog's HTTP server in \
            this process, and pages through GET /v1/events (1,000 events a page by default, one consumer, an audit \
            API key) \
            from position 0 to the end; the baseline copies the same rows, in position order, with COPY TO STDOUT \
            on one connection. Goal: at least 0.5x the COPY rate.
            """
    )

    @OptionGroup var clusterOptions: ClusterOptions

    @Option(help: "How many sealed events to export.")
    var events: Int = 200_000

    @Option(help: "Events per page (the route's limit, at most 1,000).")
    var pageSize: Int = 1000

    func run() async throws {
        let cluster = try self.clusterOptions.cluster()
        let database = try await BenchDatabase.make(in: cluster)
        try await SyntheticFailures.fill(conninfo: database.conninfo, count: self.events)
        let pool = ConnectionPool(conninfo: database.conninfo, maximumConnections: 8)
        let configuration = try JSONValue.members([
            "development": .bool(true),
            // The pages come from one address as fast as they are answered: no rate limit in the way.
            "rate_limits": .members(["enabled": .bool(false)]),
        ]).decode(ServerConfiguration.self)
        let components = try ServerComponents(
            configuration: configuration,
            pool: pool,
            accessTokenKey: try PrivateKey.generate(for: .es256),
            fetcher: AsyncHTTPFetcher()
        )
        let server = try await ServiceRunner.start(router: try buildRouter(components: components).router)
        let key = try await APIKeyStore(pool: pool).create(name: "bench-siem", scope: .audit)
        let client = HTTPTestClient(baseURL: server.baseURL)

        let total = Int64(self.events)
        let http = try await self.exportOverHTTP(client, key: key, total: total)
        let streamed = try await Self.exportStreamed(from: server.baseURL, key: key, total: total)
        await server.stop()
        let connection = try await Connection.connect(database.conninfo)
        let direct = try await self.readDirectly(on: connection, total: total)
        let copy = try await Self.copyOut(on: connection, total: total)
        self.report(total: total, http: http, streamed: streamed, direct: direct, copy: copy)
    }

    /// One timed pass: rows (or events), bytes and seconds.
    struct Pass {
        var rows = 0
        var bytes = 0
        var seconds = 0.0
        var rate: Double { Double(self.rows) / self.seconds }
    }

    /// Pages through `GET /v1/events` as a SIEM would, reading only each page's cursor.
    private func exportOverHTTP(_ client: HTTPTestClient, key: String, total: Int64) async throws -> Pass {
        var pass = Pass()
        var cursor: Int64 = 0
        let start = ContinuousClock.now
        while cursor < total {
            let answer = try await client.send(
                "GET",
                "/v1/events?after=\(cursor)&limit=\(self.pageSize)",
                headers: [("Authorization", "Bearer \(key)")]
            )
            // The consumer reads the cursor from the end of the page without parsing the events (a SIEM hands
            // them on), so the rate measures authlog, not this client's JSON parser.
            guard answer.status == 200, let next = Self.cursor(in: answer.body) else {
                throw ValidationError("export answered \(answer.status)")
            }
            pass.rows += Int(min(next, total) - cursor)
            pass.bytes += answer.body.count
            cursor = next
        }
        pass.seconds = (ContinuousClock.now - start).inSeconds
        return pass
    }

    /// One `GET /v1/events/stream?after=0` as a SIEM's backfill would fetch it: curl writes the answer to a
    /// file, then the lines are counted and the last must be the one at the position of their count.
    private static func exportStreamed(from baseURL: String, key: String, total: Int64) async throws -> Pass {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authlog-bench-stream-\(ProcessInfo.processInfo.processIdentifier).ndjson"
        )
        defer { try? FileManager.default.removeItem(at: output) }
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = [
            "curl", "-sS", "--fail", "-H", "Authorization: Bearer \(key)", "-o", output.path,
            baseURL + "/v1/events/stream?after=0",
        ]
        let start = ContinuousClock.now
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            curl.terminationHandler = { _ in continuation.resume() }
            do { try curl.run() } catch { continuation.resume(throwing: error) }
        }
        var pass = Pass()
        pass.seconds = (ContinuousClock.now - start).inSeconds
        guard curl.terminationStatus == 0 else { throw ValidationError("curl exited \(curl.terminationStatus)") }
        let body = try Data(contentsOf: output)
        pass.bytes = body.count
        pass.rows = body.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        let lastLine = body.dropLast().split(separator: UInt8(ascii: "\n")).last.map {
            String(decoding: $0, as: UTF8.self)
        }
        // The head has grown past the filled events by the paged pass's own audit.accessed records: the stream
        // ends there, gapless from position 1.
        guard pass.rows >= Int(total), lastLine?.hasPrefix("{\"position\":\(pass.rows),") == true else {
            throw ValidationError("the stream held \(pass.rows) lines for \(total) events or more")
        }
        return pass
    }

    /// The same pages read straight from the store (no HTTP, no API key check, no audit record): what the
    /// route adds on top of the database's part.
    private func readDirectly(on connection: Connection, total: Int64) async throws -> Pass {
        var pass = Pass()
        var cursor: Int64 = 0
        let start = ContinuousClock.now
        while cursor < total {
            let page = try await EventReader().page(
                after: cursor,
                limit: self.pageSize,
                filter: EventFilter(),
                on: connection
            )
            pass.rows += page.events.count
            cursor = page.next
        }
        pass.seconds = (ContinuousClock.now - start).inSeconds
        return pass
    }

    /// The baseline: `COPY … TO STDOUT` of the same rows.
    private static func copyOut(on connection: Connection, total: Int64) async throws -> Pass {
        var pass = Pass()
        var bytes = 0
        let start = ContinuousClock.now
        pass.rows = try await connection.copyOut(
            SQLQuery(
                unsafeSQL: """
                    COPY (SELECT \(EventRow.exportedColumns) FROM authlog.events WHERE position <= \(total)
                          ORDER BY position) TO STDOUT
                    """
            )
        ) { bytes += $0.count }
        pass.bytes = bytes
        pass.seconds = (ContinuousClock.now - start).inSeconds
        return pass
    }

    /// Prints the three passes and the goal.
    private func report(total: Int64, http: Pass, streamed: Pass, direct: Pass, copy: Pass) {
        say("export benchmark: \(total) sealed events, one consumer, pages of \(self.pageSize)")
        say(
            String(
                format: "GET /v1/events: %.0f events/s (%d events, %.1f MB of JSON in %.2f s)",
                http.rate,
                http.rows,
                Double(http.bytes) / 1e6,
                http.seconds
            )
        )
        say(
            String(
                format:
                    "GET /v1/events/stream (one answer, read by curl): %.0f events/s (%d events, %.1f MB in %.2f s)",
                streamed.rate,
                streamed.rows,
                Double(streamed.bytes) / 1e6,
                streamed.seconds
            )
        )
        say(
            String(
                format:
                    "the same pages read from the store directly (no HTTP, key check or audit record): %.0f events/s",
                direct.rate
            )
        )
        say(
            String(
                format: "baseline COPY ... TO STDOUT of the same rows: %.0f rows/s (%d rows, %.1f MB in %.2f s)",
                copy.rate,
                copy.rows,
                Double(copy.bytes) / 1e6,
                copy.seconds
            )
        )
        say(String(format: "paged export: %.2fx COPY", http.rate / copy.rate))
        say(
            String(
                format: "goal: export >= 0.5x COPY (the stream): %.2fx %@",
                streamed.rate / copy.rate,
                streamed.rate / copy.rate >= 0.5 ? "met" : "NOT met"
            )
        )
    }

    /// The `next` member of a page, read from the body's tail: `…],"next":N,"head":H}` (canonical member order).
    static func cursor(in body: [UInt8]) -> Int64? {
        let tail = String(decoding: body.suffix(64), as: UTF8.self)
        guard let range = tail.range(of: "\"next\":", options: .backwards) else { return nil }
        return Int64(tail[range.upperBound...].prefix { $0.isNumber })
    }
}
