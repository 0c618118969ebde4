import AuthlogClient
import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// The activity screen against a real `authlog serve`: the positions `GET /v1/me/activity` lists are the ones
    /// the receipts prove, and a listed position the proof contradicts is refused. Server configuration: the
    /// defaults but for a checkpoint key, a checkpoint directory and a checkpoint at least every second while
    /// events arrive (``MonitoredLog``).
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct MonitorActivityTests {
        /// The user signs in on another device first (no monitor there), then on this one. This device's activity
        /// lists the other device's sign-in too, which no answer named to it: the monitor checks it as listed,
        /// and it verifies at the position the list gave. On a third device, the proxy moves that listed position
        /// by one: that entry is refused with both positions, the list's and the proof's.
        @Test func theActivityListsThePositionsTheReceiptsProve() async throws {
            try await MonitorServers.run { servers in
                let elsewhere = try await AuthlogClient(baseURL: servers.a.baseURL)
                    .signIn(with: .dev(subject: "two-devices"))
                let (device, monitor) = try servers.device()
                let signedIn = try await device.signIn(with: .dev(subject: "two-devices"))
                try #require(signedIn.tokens.userID == elsewhere.tokens.userID)
                _ = try await MonitorServers.settledCheckpoint(of: servers.a)
                let listed = try await device.checkedActivity().entries.filter {
                    elsewhere.eventIDs.contains($0.entry.id) && $0.entry.position != nil
                }
                try #require(!listed.isEmpty, "the other device's sign-in is listed with its position: \(listed)")
                try await monitor.checkNow()
                for entry in listed {
                    let state = await monitor.receiptState(of: entry.entry.id)
                    guard case .verified(let receipt) = state else {
                        Issue.record("\(entry.entry.type) \(entry.entry.id): \(state)")
                        continue
                    }
                    #expect(receipt.position == entry.entry.position, "\(entry.entry.type)")
                }

                let moved = try #require(listed.last)
                let position = try #require(moved.entry.position)
                servers.proxy.rewrite { exchange, answer in
                    guard exchange.path == "/v1/me/activity" else { return answer }
                    return HTTPTestClient.Answer(
                        status: answer.status,
                        headers: answer.headers,
                        body: Self.moving(moved.entry.id, to: position + 1, in: answer.json).canonicalBytes
                    )
                }
                let (third, thirdMonitor) = try servers.device()
                _ = try await third.signIn(with: .dev(subject: "two-devices"))
                _ = try await MonitorServers.settledCheckpoint(of: servers.a)
                let shown = try await third.checkedActivity().entries.first { $0.entry.id == moved.entry.id }
                #expect(shown?.entry.position == position + 1, "the proxy moved it")
                servers.proxy.rewrite(nil)
                try await thirdMonitor.checkNow()
                #expect(
                    await thirdMonitor.receiptState(of: moved.entry.id)
                        == .refused(.positionMismatch(listed: position + 1, proven: position))
                )
            }
        }

        /// `activity` with the entry `id`'s position set to `position`.
        private static func moving(_ id: String, to position: Int64, in activity: JSONValue) -> JSONValue {
            guard case .object(let members) = activity else { return activity }
            return .object(
                members.map { member in
                    guard member.name == "activity", case .array(let entries) = member.value else { return member }
                    let changed = entries.map { entry -> JSONValue in
                        guard entry["event_id"] == .string(id), case .object(let fields) = entry else { return entry }
                        return .object(
                            fields.map { $0.name == "position" ? ($0.name, .number(String(position))) : $0 }
                        )
                    }
                    return (member.name, .array(changed))
                }
            )
        }
    }
}
