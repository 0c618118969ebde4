import AuthlogCore
import AuthlogPostgres
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// `GET /v1/events/stream`: one answer of JSON lines from a cursor to the head the request began with, the
/// same lines the pages give, read once on the record, refused as the pages are.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct EventExportStreamTests {
    /// The answer's lines (each ended by a newline), parsed.
    private static func lines(of answer: HTTPTestClient.Answer) throws -> [JSONValue] {
        #expect(answer.body.last == UInt8(ascii: "\n") || answer.body.isEmpty, "every line ends with a newline")
        return try answer.body.split(separator: UInt8(ascii: "\n")).map { try JSONParser().parse(Array($0)) }
    }

    /// Every page of `GET /v1/events` from 0, as the elements of their `events`, up to `through`.
    private static func pages(
        through: Int64,
        query: String,
        key: String,
        on server: ServerHarness
    ) async throws
        -> [JSONValue]
    {
        var events: [JSONValue] = []
        var cursor: Int64 = 0
        while cursor < through {
            let page = try await ExportRequests.get(
                "/v1/events?after=\(cursor)&limit=1000\(query)",
                key: key,
                on: server
            )
            guard case .array(let elements)? = page.json["events"], let next = page.json["next"]?.canonicalText,
                let nextPosition = Int64(next)
            else {
                Issue.record("page after \(cursor) answered \(page.status)")
                return events
            }
            events += elements
            cursor = nextPosition
        }
        return events.filter { Self.position(of: $0) ?? 0 <= through }
    }

    private static func position(of event: JSONValue) -> Int64? {
        (event["position"] ?? event["unmapped"]?["authlog"]?["position"]).flatMap { Int64($0.canonicalText) }
    }

    private static func accessQueries(_ server: ServerHarness) async throws -> [(String, String?, String)] {
        try await server.events().filter { $0.type == "audit.accessed" }.map {
            ($0.outcome, $0.reason, $0.data["query"]?.stringValue ?? "")
        }
    }

    /// 11,000 events (three pages of the stream's): the answer holds every position from 1 to its
    /// `Authlog-Head`, in order and gapless, each line byte-equal in meaning to the pages' element; events
    /// sealed after it began (its own `audit.accessed`) are not in it; the read is recorded once, naming its range.
    @Test func aStreamIsEveryPageUpToTheHeadItBeganWith() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        try await SyntheticFailures.fill(conninfo: server.database.conninfo, count: 11_000)
        let key = try await APIKeyStore(pool: server.components.store.pool).create(name: "siem", scope: .audit)
        let answer = try await ExportRequests.get("/v1/events/stream?after=0", key: key, on: server)
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type") == "application/x-ndjson")
        let head = try #require(answer.header("Authlog-Head").flatMap { Int64($0) })
        #expect(head == 11_000, "the head when the stream began: the filled events, before its own record")
        let streamed = try Self.lines(of: answer)
        #expect(streamed.map { Self.position(of: $0) } == (1...head).map { $0 })
        let paged = try await Self.pages(through: head, query: "", key: key, on: server)
        #expect(streamed.count == paged.count)
        #expect(zip(streamed, paged).allSatisfy { $0.canonicalText == $1.canonicalText }, "the pages' lines")
        let reads = try await Self.accessQueries(server)
        #expect(reads.first?.2 == "export_stream after=0 through=11000", "\(reads.first.map { "\($0)" } ?? "none")")
        #expect(reads.filter { $0.2.hasPrefix("export_stream") }.count == 1, "one record for the whole answer")

        let rest = try await ExportRequests.get("/v1/events/stream?after=\(head)", key: key, on: server)
        let restHead = try #require(rest.header("Authlog-Head").flatMap { Int64($0) })
        #expect(rest.status == 200 && restHead > head, "the stream's own record and the pages' were sealed since")
        #expect(try Self.lines(of: rest).map { Self.position(of: $0) } == (head + 1...restHead).map { $0 })
    }

    /// Events with large `data` (30 KB each, 200 of them: 6 MB) come in pages cut by bytes, about
    /// `EventReader.streamPageBytes` each, and the stream still holds every one; a page read from a database
    /// whose head is below the stream's end is refused (`.outOfRange`, which sends a replica's read to the
    /// primary) instead of ending the stream early.
    @Test func largeEventsComeInPagesCutByBytesAndADatabaseBehindTheEndIsRefused() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let blob = String(repeating: "x", count: 30_000)
        for index in 1...200 {
            try await server.components.store.append(
                EventEnvelope(
                    stream: StreamName(category: "signin", id: "apple"),
                    type: .signinFailed,
                    outcome: .failure,
                    reason: "expired",
                    provider: "apple",
                    data: .members(["reason": .string("expired"), "note": .string("\(index) \(blob)")])
                )
            )
        }
        try await server.components.store.sealPending()
        let connection = try await server.database.connect()
        let head = try await EventReader().sealedHead(on: connection)
        let first = try await EventReader().streamRows(after: 0, through: head, filter: EventFilter(), on: connection)
        let page = try first.page()
        #expect((130...140).contains(page.events.count), "4 MiB of 30 KB rows: \(page.events.count)")
        #expect(first.next == page.events.last?.position)
        do {
            _ = try await EventReader().streamRows(after: head, through: head + 5, filter: .init(), on: connection)
            Issue.record("an empty page from a database behind the stream's end ended the stream")
        } catch let error as StoreError {
            #expect(error.code == .outOfRange)
        }
        let end = try await EventReader().streamRows(after: head, through: head, filter: .init(), on: connection)
        #expect(try end.page().events.isEmpty && end.next == head)

        let key = try await APIKeyStore(pool: server.components.store.pool).create(name: "siem", scope: .audit)
        let answer = try await ExportRequests.get("/v1/events/stream", key: key, on: server)
        #expect(answer.status == 200)
        #expect(try Self.lines(of: answer).map { Self.position(of: $0) } == (1...head).map { $0 })
    }

    /// The filters and `format=ocsf` give the lines the pages give for the same query.
    @Test func filtersAndOCSFAreThePagesLines() async throws {
        let (server, _) = try await ServerHarness.startSigningCheckpoints(origin: "stream.test/log")
        defer { Task { await server.stop() } }
        let key = try await APIKeyStore(pool: server.components.store.pool).create(name: "siem", scope: .audit)
        let user = UUID()
        for provider in ["apple", "google", "apple", "kakao"] {
            try await server.components.store.append(
                ExportRequests.failedSignin(provider: provider, user: provider == "google" ? user : nil)
            )
        }
        try await server.components.store.sealPending()
        for query in ["&provider=apple", "&user_id=\(user.uuidString.lowercased())", "&type=signin.failed&format=ocsf"]
        {
            let answer = try await ExportRequests.get("/v1/events/stream?after=0\(query)", key: key, on: server)
            #expect(answer.status == 200, "\(query)")
            let head = try #require(answer.header("Authlog-Head").flatMap { Int64($0) })
            let streamed = try Self.lines(of: answer)
            let paged = try await Self.pages(through: head, query: query, key: key, on: server)
            #expect(!streamed.isEmpty && streamed.map(\.canonicalText) == paged.map(\.canonicalText), "\(query)")
        }
        let apple = try Self.lines(
            of: try await ExportRequests.get("/v1/events/stream?provider=apple", key: key, on: server)
        )
        #expect(apple.map { $0["provider"]?.stringValue } == ["apple", "apple"])
    }

    /// A bad parameter (`limit` included: a stream ends at the head) and a cursor beyond the log are 400 and
    /// recorded as refused; a missing or wrong-scope key is refused as on the pages.
    @Test func badQueriesAndKeysAreRefusedAndRecorded() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let keys = APIKeyStore(pool: server.components.store.pool)
        let key = try await keys.create(name: "siem", scope: .audit)
        let ingest = try await keys.create(name: "feeder", scope: .ingest)
        let refused: [(String, String)] = [
            ("/v1/events/stream?limit=5", "invalid_request"),
            ("/v1/events/stream?after=-1", "invalid_request"),
            ("/v1/events/stream?after=1&after=2", "invalid_request"),
            ("/v1/events/stream?format=cef", "invalid_request"),
            ("/v1/events/stream?after=1000", "out_of_range"),
        ]
        for (path, code) in refused {
            let answer = try await ExportRequests.get(path, key: key, on: server)
            #expect(answer.status == 400 && answer.string("error") == code, "\(path): \(answer.status)")
        }
        let reads = try await Self.accessQueries(server)
        #expect(reads.count == refused.count)
        #expect(reads.allSatisfy { $0.0 == "failure" && $0.1 == "invalid_request" && $0.2 == "export_stream" })
        let anonymous = try await ExportRequests.get("/v1/events/stream", key: nil, on: server)
        #expect(anonymous.status == 401 && anonymous.string("error") == "invalid_api_key")
        let wrongScope = try await ExportRequests.get("/v1/events/stream", key: ingest, on: server)
        #expect(wrongScope.status == 403 && wrongScope.string("error") == "insufficient_scope")
    }
}
