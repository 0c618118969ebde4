import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// A `Content-Length` too large for the body limit is refused at once, however large: 2^63 and 2^64 − 1 (too
    /// large for an `Int`, accepted by the HTTP parser) are 413 at once (well within 10 s even on a loaded machine), not a 408 after the 30 s body timeout,
    /// and 2^64 (refused by the parser) is a JSON 400.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct ContentLengthTests {
        @Test func hugeDeclaredLengthsAreRefusedAtOnce() async throws {
            let database = try await TestDatabase.make()
            let server = try await ServeProcess.start(database: database)
            defer { server.stop() }
            for (length, status) in [
                ("9223372036854775808", 413), ("18446744073709551615", 413), ("18446744073709551616", 400),
                ("1048577", 413),
            ] {
                let head =
                    "POST /v1/signin/dev HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(length)\r\n\r\n{"
                let started = ContinuousClock.now
                let answer = try await PipeliningTests.exchange(Array(head.utf8), answers: 1, port: server.port).first
                #expect(answer??.status == status, "Content-Length: \(length)")
                #expect(answer??.json?["error"]?.stringValue != nil, "Content-Length: \(length)")
                #expect(ContinuousClock.now - started < .seconds(10), "Content-Length: \(length)")
            }
        }
    }
}
