import AuthlogCore
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.enabled(if: TestDatabase.isAvailable))
struct AppendCommandTests {
    @Test func twoProcessesAppendingAtOnceGetGaplessPositions() async throws {
        let database = try await TestDatabase.make()
        var first = TrafficGenerator(seed: 1)
        var second = TrafficGenerator(seed: 2)
        let inputs = [jsonLines(first.events(count: 3000)), jsonLines(second.events(count: 3000))]
        let expected = inputs.map { $0.split(separator: "\n").count }.reduce(0, +)
        let processes = try inputs.map { _ in
            try CLIProcess.start(["append", "--batch-size", "7"], databaseURL: database.conninfo)
        }
        for (process, input) in zip(processes, inputs) {
            process.stdin.fileHandleForWriting.write(Data(input.utf8))
            try process.stdin.fileHandleForWriting.close()
        }
        var acknowledgedRanges: [[Int64]] = []
        for process in processes {
            let output = String(
                decoding: await ChildProcess.readToEnd(process.stdout.fileHandleForReading),
                as: UTF8.self
            )
            await ChildProcess.waitForExit(process.process)
            #expect(process.process.terminationStatus == 0)
            acknowledgedRanges.append(
                try output.split(separator: "\n").map { line in
                    let json = try JSONParser().parse(String(line))
                    return Int64(json["last_position"].flatMap { if case .number(let n) = $0 { n } else { nil } } ?? "")
                        ?? 0
                }
            )
        }
        let firstLast = try #require(acknowledgedRanges.first?.last)
        let secondFirst = try #require(acknowledgedRanges.last?.first)
        #expect(firstLast > secondFirst, "the two processes' batches interleaved")
        let stored = try await database.connect().query("SELECT position FROM authlog.events ORDER BY position")
        #expect(try stored.rows.map { try $0.decode(Int64.self, at: 0) } == Array(1...Int64(expected)))
        let verify = try await CLIProcess.run(["verify"], databaseURL: database.conninfo)
        #expect(verify.status == 0)
        #expect(verify.stdout.hasPrefix("log intact: \(expected) events"))
    }

    @Test func aKilledAppenderLosesNoAcknowledgedEvent() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 3)
        let events = traffic.events(count: 20_000)
        let process = try CLIProcess.start(["append", "--batch-size", "20"], databaseURL: database.conninfo)
        process.stdin.fileHandleForWriting.write(Data(jsonLines(events).utf8))
        try process.stdin.fileHandleForWriting.close()
        var acknowledged = Data()
        let reader = process.stdout.fileHandleForReading
        while acknowledged.split(separator: UInt8(ascii: "\n")).count < 40 {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            acknowledged.append(chunk)
        }
        kill(process.process.processIdentifier, SIGKILL)
        process.process.waitUntilExit()
        #expect(process.process.terminationReason == .uncaughtSignal)
        acknowledged.append(reader.readDataToEndOfFile())
        let lines = String(decoding: acknowledged, as: UTF8.self).split(separator: "\n")
        let complete = lines.filter { $0.hasSuffix("}") }
        let acknowledgedLast =
            try complete.map { line -> Int64 in
                let json = try JSONParser().parse(String(line))
                guard case .number(let text)? = json["last_position"], let value = Int64(text) else { return 0 }
                return value
            }.max() ?? 0
        #expect(acknowledgedLast >= 800)
        let stored = try await database.scalar("SELECT coalesce(max(position), 0) FROM authlog.events")
        let count = try await database.scalar("SELECT count(*) FROM authlog.events")
        #expect(stored >= acknowledgedLast, "every acknowledged event survived the kill")
        #expect(count == stored, "no gap")
        #expect(stored < Int64(events.count), "the process was killed before it finished")
        let verify = try await CLIProcess.run(["verify"], databaseURL: database.conninfo)
        #expect(verify.status == 0, "\(verify.stdout)")
    }

    @Test func badLinesAreReportedByNumberAndNothingIsStored() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 4)
        var lines = jsonLines(traffic.events(count: 5)).split(separator: "\n").map(String.init)
        lines.insert("{\"type\": \"signin.failed\", \"stream\": \"signin-apple\"", at: 2)
        lines.insert(
            "{\"type\": \"signin.teleported\", \"stream\": \"signin-apple\", \"occurred_at\": \"2026-11-01T00:00:00Z\"}",
            at: 4
        )
        lines.insert("", at: 5)
        let output = try await CLIProcess.run(
            ["append"],
            input: lines.joined(separator: "\n"),
            databaseURL: database.conninfo
        )
        #expect(output.status == 1)
        #expect(output.stderr.contains("line 3: malformed JSON"))
        #expect(output.stderr.contains("line 5: type is not in the event catalogue"))
        #expect(output.stderr.contains("2 bad line(s); nothing was stored"))
        #expect(try await database.scalar("SELECT count(*) FROM authlog.events") == 0)
    }

    @Test func aStreamVersionConflictNamesTheLineAndStoresNothingOfItsBatch() async throws {
        let database = try await TestDatabase.make()
        let lines = """
            {"type":"signin.failed","stream":"signin-apple","occurred_at":"2026-11-01T10:00:00Z","reason":"expired","provider":"apple","data":{"reason":"expired"}}
            {"type":"signin.failed","stream":"signin-apple","stream_version":5,"occurred_at":"2026-11-01T10:00:01Z","reason":"expired","provider":"apple","data":{"reason":"expired"}}
            """
        let output = try await CLIProcess.run(["append"], input: lines, databaseURL: database.conninfo)
        #expect(output.status == 1)
        #expect(output.stderr.contains("line 2: wrong_expected_version"))
        #expect(try await database.scalar("SELECT count(*) FROM authlog.events") == 0)
    }

    @Test func appendingTheSameFileTwiceStoresItOnce() async throws {
        let database = try await TestDatabase.make()
        var traffic = TrafficGenerator(seed: 5)
        let input = jsonLines(traffic.events(count: 50))
        let first = try await CLIProcess.run(["append"], input: input, databaseURL: database.conninfo)
        let second = try await CLIProcess.run(["append"], input: input, databaseURL: database.conninfo)
        #expect(first.status == 0 && second.status == 0)
        let count = Int64(input.split(separator: "\n").count)
        #expect(first.stdout.contains("\"stored\":\(count)"))
        #expect(second.stdout.contains("\"already_stored\":\(count)"))
        #expect(try await database.scalar("SELECT count(*) FROM authlog.events") == count)
    }

    @Test func yearZeroOversizedDataAndOverlongLinesAreRefusedByLine() async throws {
        let database = try await TestDatabase.make()
        let good =
            #"{"type":"signin.failed","stream":"signin-apple","occurred_at":"2026-11-01T10:00:00Z","reason":"expired","provider":"apple","data":{"reason":"expired"}}"#
        let yearZero = good.replacingOccurrences(of: "2026-11-01", with: "0000-01-01")
        let bigData = good.replacingOccurrences(
            of: #"{"reason":"expired"}"#,
            with: #"{"reason":"expired","note":""# + String(repeating: "x", count: 70_000) + #""}"#
        )
        let overlong = good.replacingOccurrences(
            of: #"{"reason":"expired"}"#,
            with: #"{"reason":"expired","note":""# + String(repeating: "y", count: 300_000) + #""}"#
        )
        let output = try await CLIProcess.run(
            ["append"],
            input: [good, yearZero, bigData, overlong].joined(separator: "\n"),
            databaseURL: database.conninfo
        )
        #expect(output.status == 1)
        #expect(output.stderr.contains("line 2: occurred_at must be an ISO 8601 timestamp"))
        #expect(output.stderr.contains("line 3: data is 700"), "\(output.stderr.prefix(500))")
        #expect(output.stderr.contains("at most 65536 bytes of JSON are accepted"))
        #expect(output.stderr.contains("line 4: is 300"))
        #expect(output.stderr.contains("3 bad line(s); nothing was stored"))
        #expect(try await database.scalar("SELECT count(*) FROM authlog.events") == 0)
    }

    /// An event_id given twice in one batch (a producer's retry) is one event: stored once, acknowledged with
    /// one position, the other line counted as already stored, and the rest of the input still committed.
    @Test func anEventIDGivenTwiceInABatchIsStoredOnceAndTheRunGoesOn() async throws {
        let database = try await TestDatabase.make()
        let line = { (second: Int, id: String) in
            #"{"event_id":"\#(id)","type":"signin.failed","stream":"signin-apple","occurred_at":"2026-11-01T10:00:0\#(second)Z","reason":"expired","provider":"apple","data":{"reason":"expired"}}"#
        }
        let twice = "0196a0e8-7d2c-7c3e-9f00-000000000001"
        let input = [
            line(1, twice), line(2, "0196a0e8-7d2c-7c3e-9f00-000000000002"), line(3, twice),
            line(4, "0196a0e8-7d2c-7c3e-9f00-000000000004"),
        ]
        let output = try await CLIProcess.run(
            ["append", "--batch-size", "3"],
            input: input.joined(separator: "\n"),
            databaseURL: database.conninfo
        )
        #expect(output.status == 0, "\(output.stderr)")
        let acknowledged = try AppendStreamingTests.acknowledgements(output.stdout)
        #expect(acknowledged == [[1, 3, 1, 2, 2], [4, 4, 3, 3, 1]], "\(output.stdout)")
        #expect(output.stdout.contains(#""already_stored":1"#))
        #expect(try await database.scalar("SELECT count(*) FROM authlog.events") == 3)
    }

    /// With --batch-size, a batch the database refuses leaves the batches acknowledged before it committed
    /// (as documented), and nothing from it on.
    @Test func aRefusedBatchKeepsTheEarlierBatchesAndNothingAfter() async throws {
        let database = try await TestDatabase.make()
        let line = { (second: Int, version: String) in
            #"{"type":"signin.failed","stream":"signin-apple",\#(version)"occurred_at":"2026-11-01T10:00:0\#(second)Z","reason":"expired","provider":"apple","data":{"reason":"expired"}}"#
        }
        let input = [line(1, ""), line(2, ""), line(3, #""stream_version":9,"#), line(4, ""), line(5, "")]
        let output = try await CLIProcess.run(
            ["append", "--batch-size", "2"],
            input: input.joined(separator: "\n"),
            databaseURL: database.conninfo
        )
        #expect(output.status == 1)
        #expect(output.stdout.split(separator: "\n").count == 1, "one batch was acknowledged")
        #expect(output.stderr.contains("line 3: wrong_expected_version"))
        #expect(output.stderr.contains("the events from line 3 on were not stored"))
        #expect(try await database.scalar("SELECT count(*) FROM authlog.events") == 2)
    }
}
