import AuthlogClient
import Foundation
import Testing

/// The monitor reads the log's answers with a bound while they arrive (``LogMonitor/Configuration/maximumAnswerBytes``,
/// 1 MiB by default), not after URLSession collected them: a body streamed past the bound is cut near it, whatever
/// its `Content-Length` says; the log reads accept gzip, and a compressed body counts at its decoded size.
///
/// One test at a time: the memory watch reads the whole process's resident size, and three streams at once add up.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct MonitorAnswerBoundTests {
    /// The default bound.
    static let limit = 1 << 20
    /// What the fake server would send: far past the bound.
    static let streamed = 256 << 20
    /// How much the process may grow while one stream is read: half of what a reader that kept the stream would
    /// hold. Not tighter: the watch sees every other suite running in the process at the time, and under
    /// AddressSanitizer freed memory stays in its quarantine (CI saw 70 MB with three streams at once).
    static let growthBound = Self.streamed / 2
    /// How much the server may have sent before the reader's hang-up took hold: half the stream. The reader
    /// cancels near the bound, but URLSession on Linux reads on until the cancel reaches its socket (0.6 s and
    /// 40 MB on a machine at load 10); a reader that did not cut the stream takes all of it.
    static let sentBound = Self.streamed / 2

    /// The error `checkNow()` throws when the receipts route answers `answer`; how much the process's memory grew
    /// meanwhile (nil where it cannot be read).
    static func check(answering answer: HTTPAnswer) async throws -> (error: MonitorError?, grew: Int?) {
        let server = try FakeAuthlog()
        let (_, monitor, _) = try await MonitorBadInputTests.signedIn(server)
        server.queue(rawAnswer: answer)
        let memory = MemoryWatch()
        do {
            try await monitor.checkNow()
            return (nil, await memory.stop())
        } catch {
            return (error, await memory.stop())
        }
    }

    @Test(arguments: [nil, Self.streamed])
    func aBodyStreamedPastTheBoundIsCutWhileItArrives(declaredLength: Int?) async throws {
        // No Content-Length (the body ends when the connection does), or the true one, far over the bound.
        let stream = StreamedBody(total: Self.streamed, declaredLength: declaredLength)
        let (error, grew) = try await Self.check(
            answering: HTTPAnswer(status: 200, headers: ["Content-Type": "application/json"], stream: stream)
        )
        #expect(error == .answerTooLarge(limit: Self.limit))
        // The reader hung up near the bound: the server got rid of the bound, what the sockets' buffers hold and
        // what came while the cancel took hold, not the 256 MiB.
        #expect(stream.sent.total < Self.sentBound, "the server sent \(stream.sent.total) bytes")
        if let grew { #expect(grew < Self.growthBound, "the memory grew by \(grew) bytes") }
    }

    @Test func aContentLengthUnderTheBoundLetsNoMoreIn() async throws {
        // The head says 4 KiB; the server goes on past it. The client reads the 4 KiB the head promised (spaces:
        // not JSON) and hangs up.
        let stream = StreamedBody(total: Self.streamed, declaredLength: 4_096)
        let (error, grew) = try await Self.check(
            answering: HTTPAnswer(status: 200, headers: ["Content-Type": "application/json"], stream: stream)
        )
        #expect(error == .malformedAnswer("not JSON"))
        #expect(stream.sent.total < Self.sentBound, "the server sent \(stream.sent.total) bytes")
        if let grew { #expect(grew < Self.growthBound, "the memory grew by \(grew) bytes") }
    }

    @Test func theLogReadsAcceptGzipAndReadCompressedAnswers() async throws {
        let server = try FakeAuthlog()
        server.set(gzipAnswers: true)
        let (client, monitor, _) = try await SplitViewAlarmTests.signedIn(server, more: 3)
        try await client.refresh()
        #expect(await eventually { await monitor.state().keptCheckpoint?.size == 6 })
        // An older tree, proven a prefix through the proof route: that answer is compressed too.
        server.show(fork: { tree in tree = tree.prefix(4) }, proofsFromTrueLog: true)
        _ = try await client.signIn(with: .dev(subject: "ada"))
        #expect(await eventually { server.count("/v1/log/proof/consistency") == 1 })
        #expect(await monitor.state().alarm == nil)
        let encodings = server.acceptEncodings
        #expect(Set(encodings.map(\.path)) == ["/v1/log/receipts", "/v1/log/proof/consistency"])
        #expect(encodings.allSatisfy { $0.value == "gzip" }, "\(encodings)")
        #expect(server.gzippedAnswers == encodings.count)
    }

    @Test func aCompressedBodyCountsAtItsDecodedSize() async throws {
        // 4 MiB of spaces in 27 KB of gzip: the bound counts the 4 MiB.
        let bomb = TestGzip.compress([UInt8](repeating: 0x20, count: 4 << 20))
        #expect(bomb.count < 64 << 10)
        let (error, _) = try await Self.check(
            answering: HTTPAnswer(
                status: 200,
                headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"],
                body: Data(bomb)
            )
        )
        #expect(error == .answerTooLarge(limit: Self.limit))
    }
}
