import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// HTTP/1.1 pipelining (RFC 9112 §9.3.2): requests written in one `send()` before any answer are each
    /// answered, in order, by a real `authlog serve`; none is executed without its answer.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct PipeliningTests {
        /// One request of a pipelined batch and what its answer must show.
        enum Kind: CaseIterable {
            case signin, unknownRoute, badRefresh

            func request(_ index: Int) -> String {
                switch self {
                case .signin: Self.post("/v1/signin/dev", #"{"subject": "pipelined-\#(index)"}"#)
                case .unknownRoute: "GET /v1/nothing-\(index) HTTP/1.1\r\nHost: x\r\n\r\n"
                case .badRefresh: Self.post("/v1/token/refresh", #"{"refresh_token": "alr_not-a-token-\#(index)"}"#)
                }
            }

            func matches(_ answer: RawHTTPAnswer) -> Bool {
                switch self {
                case .signin: answer.status == 200 && answer.json?["session_id"] != nil
                case .unknownRoute: answer.status == 404 && answer.json?["error"]?.stringValue == "not_found"
                case .badRefresh: answer.status == 401 && answer.json?["error"]?.stringValue == "invalid_grant"
                }
            }

            static func post(_ path: String, _ body: String) -> String {
                "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
            }
        }

        @Test func everyPipelinedRequestIsAnsweredInOrder() async throws {
            let database = try await TestDatabase.make()
            let server = try await ServeProcess.start(database: database)
            defer { server.stop() }
            var signins: Int64 = 0
            for count in [2, 3, 10, 101] {
                let kinds = (0..<count).map { Kind.allCases[$0 % Kind.allCases.count] }
                let batch = kinds.enumerated().map { $0.element.request($0.offset) }.joined()
                let answers = try await Self.exchange(Array(batch.utf8), answers: count, port: server.port)
                #expect(answers.compactMap(\.self).count == count, "\(count) pipelined requests")
                for (index, (kind, answer)) in zip(kinds, answers).enumerated() {
                    #expect(answer.map(kind.matches) == true, "request \(index) of \(count): \(kind)")
                }
                signins += Int64(kinds.filter { $0 == .signin }.count)
            }
            // Each sign-in that ran was answered: the log holds exactly as many as were sent, once sealed.
            var stored: Int64 = 0
            for _ in 0..<100 where stored < signins {
                stored = try await database.scalar(
                    "SELECT count(*) FROM authlog.events WHERE type = 'signin.succeeded'"
                )
                if stored < signins { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(stored == Int64(signins))
        }

        @Test func threePipelinedRefreshesOfOneTokenKeepTheSession() async throws {
            let database = try await TestDatabase.make()
            let server = try await ServeProcess.start(database: database)
            defer { server.stop() }
            let signin = try await HTTPTestClient(baseURL: server.baseURL).post(
                "/v1/signin/dev",
                .members(["subject": "pipe"])
            )
            let token = signin.json["refresh_token"]?.stringValue ?? ""
            let refresh = Kind.post("/v1/token/refresh", #"{"refresh_token": "\#(token)"}"#)
            let answers = try await Self.exchange(
                Array((refresh + refresh + refresh).utf8),
                answers: 3,
                port: server.port
            )
            #expect(answers.map { $0?.status } == [200, 200, 200])
            let successors = Set(answers.compactMap { $0?.json?["refresh_token"]?.stringValue })
            #expect(successors.count == 1, "a replay within the grace window answers the same successor")
            let next = try await HTTPTestClient(baseURL: server.baseURL)
                .post("/v1/token/refresh", .members(["refresh_token": .string(successors.first ?? "")]))
            #expect(next.status == 200, "the session is still alive")
        }

        /// Writes `bytes` in one `send()` on a new connection and reads `answers` answers, off the cooperative
        /// threads; `nil` for each answer the server closed without giving.
        static func exchange(_ bytes: [UInt8], answers: Int, port: Int) async throws -> [RawHTTPAnswer?] {
            try await onOwnThread { () -> Result<[RawHTTPAnswer?], any Error> in
                Result {
                    let connection = try RawConnection(port: port)
                    defer { connection.close() }
                    try connection.write(bytes)
                    return try (0..<answers).map { _ in try connection.readAnswer(timeout: .seconds(30)) }
                }
            }.get()
        }
    }
}
