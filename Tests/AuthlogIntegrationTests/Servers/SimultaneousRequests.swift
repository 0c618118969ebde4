import AuthlogCore
import AuthlogPostgres
import AuthlogTesting
import Foundation

/// Requests sent at the same moment, as several threads or extensions of one app would send them: each on its
/// own connection from `source` (a loopback address standing for one device), every connection opened first,
/// then every request written back to back, then every answer read, off the cooperative threads.
enum SimultaneousRequests {
    /// A connection closed without answering.
    struct NoAnswer: Error {}

    /// Sends `requests` (whole HTTP/1.1 requests) together to 127.0.0.1:`port` from `source`; their answers, in
    /// the same order.
    /// - Throws: a POSIX error when a connection cannot be made, ``NoAnswer``, ``RawHTTPClient/TimedOut``.
    static func send(_ requests: [String], port: Int, from source: String) async throws -> [RawHTTPAnswer] {
        try await onOwnThread { () -> Result<[RawHTTPAnswer], any Error> in
            Result {
                let connections = try requests.map { _ in try RawConnection(port: port, from: source) }
                defer {
                    for connection in connections { connection.close() }
                }
                for (connection, request) in zip(connections, requests) { try connection.write(Array(request.utf8)) }
                // A loaded two-core machine runs the other suites' servers too: the answers are awaited, not timed.
                return try connections.map { connection in
                    guard let answer = try connection.readAnswer(timeout: .seconds(180)) else { throw NoAnswer() }
                    return answer
                }
            }
        }.get()
    }

    /// One JSON `POST` as a whole HTTP/1.1 request.
    static func post(_ path: String, _ body: JSONValue) -> String {
        let text = String(decoding: body.canonicalBytes, as: UTF8.self)
        return "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "User-Agent: ExampleApp/1.0\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)"
    }

    /// The types of the events the server recorded for the request that `answer` answers (its `X-Request-Id`),
    /// each with its event id, read from the committed events (sealed or not yet).
    /// - Throws: ``StoreError``.
    static func events(of answer: RawHTTPAnswer, in database: Connection) async throws -> [(type: String, id: String)] {
        let requestID = answer.header("X-Request-Id") ?? "-"
        let rows = try await database.query(
            """
            SELECT type, event_id::text FROM authlog.event_records
            WHERE request_id = \(requestID) ORDER BY stream, stream_version
            """
        ).rows
        return try rows.map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
    }

    /// The event ids an answer names in `Authlog-Event-Ids`, in order.
    static func eventIDs(of answer: RawHTTPAnswer) -> [String] {
        (answer.header("Authlog-Event-Ids") ?? "").split(separator: ",").map(String.init)
    }
}

extension RawHTTPAnswer {
    /// A string member of the JSON body.
    func string(_ name: String) -> String? { self.json?[name]?.stringValue }
}
