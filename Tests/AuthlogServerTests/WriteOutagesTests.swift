import AuthlogCore
import Testing

@testable import AuthlogServer

/// One outage of the log's writes is one record, however the writes flap while the disk is nearly full, and
/// the requests it refused are all in it.
struct WriteOutagesTests {
    static func at(_ seconds: Int64) -> Timestamp {
        Timestamp(microsecondsSinceEpoch: 1_800_000_000_000_000 + seconds * 1_000_000)
    }

    @Test func nothingFailedIsNothingToRecord() {
        var outages = WriteOutages()
        outages.writeSucceeded(at: Self.at(0))
        #expect(!outages.isFailing)
        #expect(outages.takeRecordable(at: Self.at(10)).isEmpty)
    }

    @Test func anOutageEndsAtTheFirstSuccessThatLastsAndCountsEveryRefusal() {
        var outages = WriteOutages()
        outages.writeFailed("server_error 53100", at: Self.at(10))
        #expect(outages.isFailing)
        for second in 10..<30 {
            outages.requestRefused(
                route: "/v1/signin/{provider}",
                error: "server_error 53100",
                at: Self.at(Int64(second))
            )
            outages.writeFailed("server_error 53100", at: Self.at(Int64(second)))
        }
        outages.requestRefused(route: "/v1/token/refresh", error: nil, at: Self.at(30))
        #expect(outages.takeRecordable(at: Self.at(30)).isEmpty, "traffic is failing: no probe while it shows the way")
        outages.writeSucceeded(at: Self.at(31))
        #expect(!outages.isFailing, "ready again as soon as a write succeeds")
        #expect(outages.takeRecordable(at: Self.at(32)).isEmpty, "not over until writes have worked for a while")
        outages.writeSucceeded(at: Self.at(32))
        let ended = outages.takeRecordable(at: Self.at(33))
        #expect(ended.count == 1)
        #expect(ended.first?.startedAt == Self.at(10) && ended.first?.endedAt == Self.at(31))
        #expect(ended.first?.refusedRoutes == ["/v1/signin/{provider}": 20, "/v1/token/refresh": 1])
        #expect(ended.first?.requestsRefused == 21 && ended.first?.error == "server_error 53100")
        outages.recorded(ended)
        #expect(outages.takeRecordable(at: Self.at(40)).isEmpty, "recorded once")
    }

    @Test func writesThatFlapOnANearlyFullDiskStayOneOutage() {
        var outages = WriteOutages()
        outages.requestRefused(route: "/v1/signin/{provider}", error: "server_error 53100", at: Self.at(0))
        for second in stride(from: 1, to: 20, by: 2) {
            outages.writeSucceeded(at: Self.at(Int64(second)))
            #expect(outages.takeRecordable(at: Self.at(Int64(second))).isEmpty)
            outages.writeFailed("server_error 53100", at: Self.at(Int64(second + 1)))
            #expect(outages.isFailing)
        }
        outages.writeSucceeded(at: Self.at(25))
        let ended = outages.takeRecordable(at: Self.at(30))
        #expect(ended.count == 1 && ended.first?.startedAt == Self.at(0) && ended.first?.endedAt == Self.at(25))
    }

    @Test func withNoTrafficRecordingTheOutageIsTheProbeAndAFailedProbeKeepsCounting() {
        var outages = WriteOutages()
        outages.requestRefused(route: "/v1/signin/{provider}", error: "connection_failed", at: Self.at(0))
        #expect(outages.takeRecordable(at: Self.at(1)).isEmpty, "a write was tried a second ago")
        let probe = outages.takeRecordable(at: Self.at(3))
        #expect(probe.count == 1 && probe.first?.endedAt == Self.at(3))
        #expect(outages.isFailing, "still failing while the probe is written")
        #expect(outages.takeRecordable(at: Self.at(4)).isEmpty, "one probe at a time")
        // The probe's append fails (which the store reports), and a request is refused meanwhile.
        outages.writeFailed("connection_failed", at: Self.at(4))
        outages.requestRefused(route: "/v1/token/refresh", error: "connection_failed", at: Self.at(4))
        outages.notRecorded(probe)
        #expect(outages.isFailing)
        #expect(
            outages.current
                == WriteOutages.Outage(
                    startedAt: Self.at(0),
                    refusedRoutes: ["/v1/signin/{provider}": 1, "/v1/token/refresh": 1],
                    error: "connection_failed"
                )
        )
        let second = outages.takeRecordable(at: Self.at(7))
        #expect(second.first?.startedAt == Self.at(0) && second.first?.requestsRefused == 2)
        outages.writeSucceeded(at: Self.at(7))
        outages.recorded(second)
        #expect(!outages.isFailing)
        #expect(outages.takeRecordable(at: Self.at(20)).isEmpty)
    }

    @Test func anEndedOutageWhoseRecordFailsGoesBackIntoTheOutageThatFailedIt() {
        var outages = WriteOutages()
        outages.writeFailed("server_error 53100", at: Self.at(0))
        outages.writeSucceeded(at: Self.at(5))
        let ended = outages.takeRecordable(at: Self.at(8))
        #expect(ended.count == 1)
        outages.writeFailed("server_error 53100", at: Self.at(8))
        outages.notRecorded(ended)
        #expect(outages.isFailing && outages.current?.startedAt == Self.at(0) && outages.current?.endedAt == nil)
        // The append failed for another reason (no outage open): it waits as it was.
        var other = WriteOutages()
        other.writeFailed("server_error 53100", at: Self.at(0))
        other.writeSucceeded(at: Self.at(5))
        let taken = other.takeRecordable(at: Self.at(8))
        other.notRecorded(taken)
        #expect(!other.isFailing && other.takeRecordable(at: Self.at(9)) == taken)
    }
}
