import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

extension Faults {
    /// One host cannot take every connection: 2,100 idle connections from 127.0.0.1 (more than the 2,048
    /// slots) leave the server answering a sign-in from 127.0.0.2 within a second, the connections past
    /// the address's share (1/16 of the slots) are closed at once, and `/metrics` counts them.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct ConnectionCapTests {
        @Test(.timeLimit(.minutes(3)))
        func oneHostHoldsOnlyItsShareOfTheSlots() async throws {
            let database = try await TestDatabase.make()
            let server = try await ServeProcess.start(database: database)
            defer { server.stop() }
            let port = server.port
            let flood = try await onOwnThread { () -> Result<[RawConnection], any Error> in
                Result { try (0..<2_100).map { _ in try RawConnection(port: port) } }
            }.get()
            defer { for connection in flood { connection.close() } }
            let started = ContinuousClock.now
            let signin = try await onOwnThread { () -> Result<RawHTTPAnswer?, any Error> in
                Result {
                    let body = #"{"subject": "elsewhere"}"#
                    let connection = try RawConnection(port: port, from: "127.0.0.2")
                    defer { connection.close() }
                    try connection.write(
                        Array(
                            ("POST /v1/signin/dev HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)").utf8
                        )
                    )
                    return try connection.readAnswer(timeout: .seconds(5))
                }
            }.get()
            #expect(signin?.status == 200)
            #expect(ContinuousClock.now - started < .seconds(1), "a sign-in from another host while one host floods")
            // The server closes each connection past the share as it accepts it.
            let closed = await onOwnThread {
                flood.reduce(0) { $0 + ($1.isClosedByPeer(within: .milliseconds(20)) ? 1 : 0) }
            }
            #expect(closed >= 2_100 - 128)
            #expect(closed < 2_100)
            // From a third address: 127.0.0.1 still holds its share.
            let metrics = try await onOwnThread { () -> Result<RawHTTPAnswer?, any Error> in
                Result {
                    let connection = try RawConnection(port: port, from: "127.0.0.3")
                    defer { connection.close() }
                    try connection.write(Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                    return try connection.readAnswer(timeout: .seconds(5))
                }
            }.get()
            let text = String(decoding: metrics?.body ?? [], as: UTF8.self)
            let refused = text.split(separator: "\n")
                .first { $0.hasPrefix("authlog_connections_refused_total{reason=\"per_address_cap\"}") }
                .flatMap { $0.split(separator: " ").last.flatMap { Int($0) } }
            #expect((refused ?? 0) >= 2_100 - 128)
        }
    }
}
