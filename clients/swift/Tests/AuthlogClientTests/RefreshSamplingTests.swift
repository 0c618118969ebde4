import Foundation
import Testing

@testable import AuthlogClient

/// Under the default ``LogMonitor/Configuration/refreshSampling`` (2) each refresh's events are queued with a
/// chance of one half, drawn at random: about half of many refreshes, and not in a pattern a server could
/// follow (a counter would check every second refresh).
struct RefreshSamplingTests {
    @Test func theDefaultChecksAboutHalfTheRefreshesAtRandom() async throws {
        #expect(LogMonitor.Configuration.defaultRefreshSampling == 2)
        let server = try FakeAuthlog()
        let client = AuthlogClient(
            baseURL: server.baseURL,
            tokenStore: InMemoryTokenStore(),
            monitor: LogMonitor.Configuration(
                pins: try server.keys.pins(),
                firstCheckDelay: .seconds(3_600),
                maximumQueued: 10_000
            )
        )
        let monitor = try #require(client.monitor)
        #expect(monitor.configuration.refreshSampling == 2, "the default")
        let expectation = EventExpectation(userID: "u", sessions: .anyOfUser, requestedAt: Date())
        var queued: [Int] = []
        for refresh in 0..<1_000 {
            let before = await monitor.state().queued
            let id = String(format: "0190a1b2-c3d4-7e5f-8a9b-%012x", refresh)
            await monitor.noteRefresh([id], expectation: expectation)
            if await monitor.state().queued > before { queued.append(refresh) }
        }
        // Binomial(1000, 1/2): 500 ± 15.8; 400…600 fails by chance less than once in 10^9 runs.
        #expect((400...600).contains(queued.count), "\(queued.count) of 1,000 refreshes queued")
        // Not every second one: both parities are among those checked, and so are runs of two in a row.
        #expect(Set(queued.map { $0 % 2 }).count == 2)
        #expect(zip(queued, queued.dropFirst()).contains { $1 == $0 + 1 })
    }
}
