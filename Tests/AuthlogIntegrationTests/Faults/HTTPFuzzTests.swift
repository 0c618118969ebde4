import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension Faults {
    /// The HTTP fuzz suite: `authlog serve` as its own OS process takes thousands of malformed requests across
    /// every route — random bytes, truncated and 10,000-deep JSON, wrong types, lone surrogates, NUL bytes,
    /// oversized and short bodies, garbage `Authorization` headers, JWT-shaped garbage, empty and very long
    /// headers, broken framing — and must answer each one: never a 5xx (the database stays up), never a hang
    /// over 5 s, every answer with an `X-Request-Id` and every error in the JSON error shape, the process alive
    /// at the end, and every sign-in attempt among them recorded as an event under its request id.
    ///
    /// `AUTHLOG_HTTP_FUZZ_REQUESTS` sets the number of requests (default 5,000) and `AUTHLOG_FUZZ_SEED` replays
    /// a run; the seed is printed.
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct HTTPFuzzTests {
        static var requestCount: Int {
            ProcessInfo.processInfo.environment["AUTHLOG_HTTP_FUZZ_REQUESTS"].flatMap { Int($0) } ?? 5_000
        }

        static var seed: UInt64 {
            ProcessInfo.processInfo.environment["AUTHLOG_FUZZ_SEED"].flatMap { UInt64($0) }
                ?? UInt64.random(in: 1...UInt64.max)
        }

        /// What one exchange showed.
        struct Outcome: Sendable {
            var problem: String?
            var signinRequestID: String?
        }

        @Test func malformedRequestsAreAnsweredAndEverySigninAttemptIsRecorded() async throws {
            let database = try await TestDatabase.make()
            let server = try await ServeProcess.start(database: database)
            defer { server.stop() }
            let seed = Self.seed
            let count = Self.requestCount
            print("HTTP fuzz: \(count) requests, seed \(seed) (replay with AUTHLOG_FUZZ_SEED=\(seed))")
            let started = ContinuousClock.now
            let outcomes = await Self.exchange(count: count, seed: seed, port: server.port)
            let problems = outcomes.compactMap(\.problem)
            #expect(problems.isEmpty, "\(problems.count) bad answers, first: \(problems.prefix(10)) (seed \(seed))")
            #expect(kill(server.process.processIdentifier, 0) == 0, "the server is still running")
            let health = try RawHTTPClient.exchange(
                port: server.port,
                request: Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8),
                timeout: .seconds(5)
            )
            #expect(health?.status == 200)

            let attempts = outcomes.compactMap(\.signinRequestID)
            let rows = try await database.connect().query(
                "SELECT request_id FROM authlog.events WHERE type IN ('signin.failed', 'signin.succeeded')"
            )
            let recorded = Set(try rows.rows.map { try $0.decode(String.self, at: 0) })
            let missing = attempts.filter { !recorded.contains($0) }
            #expect(missing.isEmpty, "\(missing.count) of \(attempts.count) sign-in attempts were not recorded")
            let seconds = (ContinuousClock.now - started).inSeconds
            print(
                "HTTP fuzz: \(count) requests in \(String(format: "%.1f", seconds)) s, \(problems.count) bad answers,"
                    + " \(attempts.count) sign-in attempts, \(attempts.count - missing.count) recorded"
            )
        }

        /// Bodies shorter than their `Content-Length` on every route that reads one: each is answered 408 within
        /// the body timeout (the connection is not held), each sign-in among them is recorded, and the refresh is
        /// counted by its address.
        @Test func shortBodiesAreAnsweredWhenTheBodyTimeoutPasses() async throws {
            let database = try await TestDatabase.make()
            let server = try await ServeProcess.start(
                database: database,
                configuration: .members(["connections": .members(["body_timeout_seconds": .number("2")])])
            )
            defer { server.stop() }
            let paths = [
                "/v1/signin/dev", "/v1/signin/apple", "/v1/token/refresh", "/v1/logout", "/oauth/introspect",
                "/oauth/revoke",
                "/v1/me/credential-state", "/v1/providers/apple/notifications",
            ]
            let answers = await onOwnThread {
                paths.map { path in
                    let request =
                        "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Authorization: Bearer x\r\nContent-Length: 500\r\n\r\n{\"subject\": \"slo"
                    let answer = try? RawHTTPClient.exchange(
                        port: server.port,
                        request: Array(request.utf8),
                        timeout: .seconds(10)
                    )
                    return (path, answer)
                }
            }
            for (path, answer) in answers {
                #expect(answer?.status == 408 || answer?.status == 401, "\(path): \(answer?.status ?? 0)")
                #expect(answer?.header("X-Request-Id") != nil, "\(path)")
                #expect(answer?.json?["error"]?.stringValue != nil, "\(path)")
            }
            let refused = try await database.connect().query(
                "SELECT provider, reason FROM authlog.events WHERE type = 'signin.failed' ORDER BY position"
            )
            let reasons = try refused.rows.map {
                "\(try $0.decode(String.self, at: 0))/\(try $0.decode(String.self, at: 1))"
            }
            #expect(reasons == ["dev/request_timeout", "unknown/request_timeout"])
            // A refresh names nobody until its token is read: its timeout is counted by address, recorded as the
            // window's first `request.refused` within a second or so.
            let counted: SQLQuery = """
                SELECT count(*) FROM authlog.events
                WHERE type = 'request.refused' AND (data->'counts'->>'refresh_request_timeout')::int = 1
                """
            let deadline = ContinuousClock.now + .seconds(15)
            while try await database.scalar(counted) == 0 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(try await database.scalar(counted) == 1)
            #expect(
                try await database.scalar("SELECT count(*) FROM authlog.events WHERE type = 'token.refresh_failed'")
                    == 0
            )
        }

        /// Sends `count` generated requests one after another (on a thread of their own: the sockets block).
        static func exchange(count: Int, seed: UInt64, port: Int) async -> [Outcome] {
            await onOwnThread {
                var generator = HTTPFuzzGenerator(random: SeededRandom(seed: seed))
                return (0..<count).map { index in Self.check(generator.next(index: index), index: index, port: port) }
            }
        }

        /// Sends one request and judges its answer.
        static func check(_ fuzzCase: HTTPFuzzCase, index: Int, port: Int) -> Outcome {
            let name = "#\(index) \(fuzzCase.method) \(fuzzCase.path) (\(fuzzCase.label))"
            let answer: RawHTTPAnswer
            do {
                guard
                    let received = try RawHTTPClient.exchange(port: port, request: fuzzCase.bytes, timeout: .seconds(5))
                else {
                    return Outcome(problem: "\(name): closed without an answer")
                }
                answer = received
            } catch {
                return Outcome(problem: "\(name): \(error)")
            }
            if answer.status >= 500 { return Outcome(problem: "\(name): status \(answer.status)") }
            guard let requestID = answer.header("X-Request-Id"), !requestID.isEmpty else {
                return Outcome(problem: "\(name): status \(answer.status) without X-Request-Id")
            }
            if answer.status >= 400 {
                guard let json = answer.json, json["error"]?.stringValue != nil,
                    json["error_description"]?.stringValue != nil
                else {
                    return Outcome(problem: "\(name): status \(answer.status) without the JSON error shape")
                }
            } else if answer.status == 200, !fuzzCase.path.hasPrefix("/metrics"), answer.json == nil {
                return Outcome(problem: "\(name): 200 without a JSON body")
            }
            return Outcome(signinRequestID: fuzzCase.isSigninAttempt ? requestID : nil)
        }
    }
}

/// Runs blocking socket work on a thread of its own, off Swift's small cooperative pool.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
