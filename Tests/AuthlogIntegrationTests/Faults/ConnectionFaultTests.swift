import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension Faults {
    /// `authlog serve` as an OS process against clients that try to pin its connections: unread bodies with
    /// `Connection: close`, and connections that send their headers slowly.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct ConnectionFaultTests {
        /// The server's open file descriptors.
        static func descriptorCount(_ pid: Int32) -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        }

        /// The server's resident memory, in kB.
        static func residentKilobytes(_ pid: Int32) -> Int {
            let status = readText(atPath: "/proc/\(pid)/status")
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        }

        /// A configuration whose `connections` let one address hold 1,000 connections, with `extra` settings.
        static func manyPerAddress(_ extra: [String: JSONValue] = [:]) -> JSONValue {
            var connections = extra
            connections["maximum_connections_per_address"] = .number("1000")
            return .object([("connections", .object(connections.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))]
            )
        }

        @Test func unreadBodiesWithConnectionCloseLeaveNoDescriptorsOrMemoryBehind() async throws {
            let database = try await TestDatabase.make()
            // 200 clients from one address: more than its default share of the slots (ConnectionCapTests).
            let server = try await ServeProcess.start(database: database, configuration: Self.manyPerAddress())
            defer { server.stop() }
            let pid = server.process.processIdentifier
            let port = server.port
            // Warm up: the pool, the first sign-in's code paths.
            for path in ["/v1/nonces", "/v1/signin/dev"] {
                _ = try RawHTTPClient.exchange(
                    port: port,
                    request: Array(
                        "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8
                    ),
                    timeout: .seconds(10)
                )
            }
            try await Task.sleep(for: .seconds(3))
            let descriptorsBefore = Self.descriptorCount(pid)
            let memoryBefore = Self.residentKilobytes(pid)
            let megabyte = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
            // 200 clients declare 10 MB, send 1 MiB and keep their sockets open; the server must close its side.
            let (statuses, connections) = await onOwnThread { () -> ([Int], [RawConnection]) in
                var statuses: [Int] = []
                var connections: [RawConnection] = []
                for index in 0..<200 {
                    let path = index.isMultiple(of: 2) ? "/v1/nonces" : "/v1/signin/dev"
                    guard let connection = try? RawConnection(port: port) else { continue }
                    let head =
                        "POST \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n"
                    try? connection.write(Array(head.utf8) + megabyte)
                    statuses.append((try? connection.readAnswer(timeout: .seconds(10)))??.status ?? 0)
                    connections.append(connection)
                }
                return (statuses, connections)
            }
            #expect(statuses.count == 200)
            #expect(statuses.filter { $0 == 200 }.count == 100, "the nonces were issued")
            #expect(statuses.filter { $0 == 413 }.count == 100, "the sign-ins were refused as too large")
            let closedByServer = await onOwnThread {
                connections.filter { $0.isClosedByPeer(within: .seconds(15)) }.count
            }
            #expect(closedByServer == 200, "the server closed every connection itself")
            // The server closes each one fully once its short linger is over.
            let deadline = ContinuousClock.now + .seconds(20)
            while Self.descriptorCount(pid) > descriptorsBefore + 4, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            let descriptorsAfter = Self.descriptorCount(pid)
            // The server hands freed memory back every ten seconds.
            while Self.residentKilobytes(pid) > memoryBefore + 40 * 1024, ContinuousClock.now < deadline + .seconds(15)
            {
                try await Task.sleep(for: .milliseconds(200))
            }
            let memoryAfter = Self.residentKilobytes(pid)
            for connection in connections { connection.close() }
            print(
                "200 unread-body requests: descriptors \(descriptorsBefore) → \(descriptorsAfter), "
                    + "RSS \(memoryBefore / 1024) MB → \(memoryAfter / 1024) MB"
            )
            #expect(descriptorsAfter <= descriptorsBefore + 4)
            // Under AddressSanitizer the allocator keeps freed memory in its quarantine by design, so the bound
            // holds for the normal build only (the figures are printed either way).
            if ProcessInfo.processInfo.environment["ASAN_OPTIONS"] == nil {
                #expect(
                    memoryAfter <= memoryBefore + 40 * 1024,
                    "RSS grew by \((memoryAfter - memoryBefore) / 1024) MB"
                )
            }
            let refused = try await database.scalar(
                "SELECT count(*) FROM authlog.events WHERE type = 'signin.failed' AND reason = 'request_too_large'"
            )
            #expect(refused == 100, "every refused sign-in is recorded")
        }

        @Test func slowHeadersAreCutOffWhileOtherClientsAreServedPromptly() async throws {
            let database = try await TestDatabase.make()
            let server = try await ServeProcess.start(
                database: database,
                configuration: Self.manyPerAddress(["header_timeout_seconds": .number("3")])
            )
            defer { server.stop() }
            let port = server.port
            let descriptorsBefore = Self.descriptorCount(server.process.processIdentifier)
            let slow = await onOwnThread { () -> [RawConnection] in
                (0..<200).compactMap { _ in
                    guard let connection = try? RawConnection(port: port) else { return nil }
                    try? connection.write(Array("GET /healthz HTTP/1.1\r\nHo".utf8))
                    return connection
                }
            }
            #expect(slow.count == 200)
            let client = HTTPTestClient(baseURL: "http://127.0.0.1:\(port)")
            _ = try await client.send("GET", "/healthz")
            var latencies: [Double] = []
            for _ in 0..<200 {
                let started = ContinuousClock.now
                let answer = try await client.send("GET", "/healthz")
                latencies.append((ContinuousClock.now - started).inSeconds)
                #expect(answer.status == 200)
            }
            latencies.sort()
            let p99 = latencies[Int(Double(latencies.count) * 0.99) - 1]
            print(
                "/healthz with 200 slow connections open: p50 \(latencies[latencies.count / 2] * 1000) ms, p99 \(p99 * 1000) ms"
            )
            #expect(p99 < 0.1)
            let answers = await onOwnThread { slow.map { (try? $0.readAnswer(timeout: .seconds(15))) ?? nil } }
            #expect(answers.allSatisfy { $0?.status == 408 }, "each slow client is told why")
            #expect(
                answers.allSatisfy {
                    $0?.json?["error"]?.stringValue == "request_timeout" && $0?.header("X-Request-Id") != nil
                }
            )
            let closed = await onOwnThread { slow.filter { $0.isClosedByPeer(within: .seconds(10)) }.count }
            #expect(closed == 200)
            for connection in slow { connection.close() }
            try await Task.sleep(for: .seconds(1))
            #expect(Self.descriptorCount(server.process.processIdentifier) <= descriptorsBefore + 4)
        }

        /// What no route can take is answered from below the router in the JSON error shape, with a request id;
        /// before, a parse error got a bare 400 and CONNECT a bare 404.
        @Test func answersBelowTheRouterAreJSONWithARequestID() async throws {
            let database = try await TestDatabase.make()
            let server = try await ServeProcess.start(database: database)
            defer { server.stop() }
            let requests: [(String, Int, String)] = [
                ("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u{0}b\r\n\r\n", 400, "invalid_request"),
                ("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 405, "method_not_allowed"),
                (
                    "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 90_000))\r\n\r\n", 431,
                    "request_header_fields_too_large"
                ),
                (
                    "POST /v1/nonces HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 9\r\n\r\nhello", 400,
                    "invalid_request"
                ),
            ]
            for (request, status, code) in requests {
                let answer = await onOwnThread {
                    try? RawHTTPClient.exchange(port: server.port, request: Array(request.utf8), timeout: .seconds(10))
                }
                #expect(answer?.status == status, "\(request.prefix(30))")
                #expect(answer?.json?["error"]?.stringValue == code)
                #expect(answer?.json?["error_description"]?.stringValue != nil)
                #expect(answer?.header("Content-Type") == "application/json")
                #expect(answer?.header("X-Request-Id")?.isEmpty == false)
            }
        }
    }
}
