import AuthlogClient
import AuthlogCore
import AuthlogTesting
import AuthlogTransparency
import Foundation
import Testing

extension Servers {
    /// The device's receipts against a real `authlog serve`, through a proxy on 127.0.0.1 that can change what the
    /// device gets. Server configuration: the defaults but for a checkpoint key, a checkpoint directory, a
    /// checkpoint at least every second while events arrive (``MonitoredLog``), and for the witness test a witness
    /// asked every second (`log.witness_interval_seconds` 1 instead of 10, whose failures back off by doubling).
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct MonitorReceiptTests {
        /// Another user's event, named to the device (the proxy adds its id to the `Authlog-Event-Ids` of the
        /// device's refresh): authlog answers `not_found` for it, and after its tries (3 by default) the monitor
        /// refuses it as not found; the device's own events verify. Then the stronger attack: the proxy answers
        /// the device's receipts request with the one authlog gives the other user for the same ids (a real
        /// receipt, included in the real log): the proof verifies, and the monitor refuses it as another user's.
        @Test func anotherUsersEventIsRefused() async throws {
            try await MonitorServers.run { servers in
                let direct = HTTPTestClient(baseURL: servers.a.baseURL.absoluteString)
                let other = try await AuthlogClient(baseURL: servers.a.baseURL).signIn(with: .dev(subject: "user-2"))
                let (device, monitor) = try servers.device()
                let signedIn = try await device.signIn(with: .dev(subject: "user-1"))
                let named = try #require(other.eventIDs.first)
                servers.proxy.rewrite { exchange, answer in
                    guard exchange.path == "/v1/token/refresh" else { return answer }
                    return answer.setting(
                        "Authlog-Event-Ids",
                        to: (answer.header("Authlog-Event-Ids") ?? "") + ",\(named)"
                    )
                }
                try await device.refresh()
                servers.proxy.rewrite(nil)
                _ = try await MonitorServers.settledCheckpoint(of: servers.a)
                // The rounds asked for here, and any the monitor's own task runs between them (a not-found event is
                // asked again after a back-off of 2 s, then 4 s): three answers without it refuse it.
                var rounds = 0
                while rounds < 10 {
                    if case .refused = await monitor.receiptState(of: named) { break }
                    try await monitor.checkNow()
                    rounds += 1
                }
                #expect(await monitor.receiptState(of: named) == .refused(.notFound(tries: 3)))
                let states = await monitor.states(signedIn.eventIDs)
                #expect(await monitor.allVerified(signedIn.eventIDs), "\(states)")
                let notFound = servers.proxy.logAnswers.filter { $0.0.target.contains(named) }.map {
                    $0.1.json["not_found"]?.arrayValue?.compactMap(\.stringValue) ?? []
                }
                #expect(notFound.count == 3 && notFound.allSatisfy { $0 == [named] }, "asked three times: \(notFound)")

                // The swap: a refresh answer names another event of user 2; the receipts answer is user 2's own.
                // A Bearer session (DPoP off), so that the proxy can send user 2's access token on its own.
                let again = try await AuthlogClient(baseURL: servers.a.baseURL, configuration: .init(usesDPoP: false))
                    .signIn(with: .dev(subject: "user-2"))
                let swapped = try #require(again.eventIDs.first)
                let otherToken = again.tokens.accessToken
                servers.proxy.rewrite { exchange, answer in
                    if exchange.path == "/v1/token/refresh" {
                        let ids = (answer.header("Authlog-Event-Ids") ?? "") + ",\(swapped)"
                        return answer.setting("Authlog-Event-Ids", to: ids)
                    }
                    guard exchange.path == "/v1/log/receipts", exchange.target.contains(swapped) else { return answer }
                    return try await direct.send(
                        "GET",
                        exchange.target,
                        headers: [("Authorization", "Bearer \(otherToken)")]
                    )
                }
                try await device.refresh()
                _ = try await MonitorServers.settledCheckpoint(of: servers.a)
                try await monitor.checkNow()
                servers.proxy.rewrite(nil)
                let refused = await monitor.receiptState(of: swapped)
                #expect(
                    refused == .refused(.anotherUser(expected: signedIn.tokens.userID, found: again.tokens.userID)),
                    "\(refused)"
                )
                #expect(await monitor.state().alarm == nil, "user 2's receipt is of the same log: no split view")
            }
        }

        /// With a witness configured (a C2SP witness on 127.0.0.1 that answers 503 until the test opens it) and
        /// pinned with quorum 1, the device's receipts are pending below quorum, not failed; once the witness
        /// cosigns, the same events verify, witnessed by it.
        @Test func aReceiptBelowQuorumStaysPendingUntilTheWitnessCosigns() async throws {
            let log = try MonitoredLog.make()
            let witness = try await GatedWitness.start(
                name: "witness.test/gated",
                origin: MonitoredLog.origin,
                logKey: log.verifier
            )
            defer { Task { await witness.stop() } }
            let members: [String: JSONValue] = [
                "witnesses": .array([witness.configuration]), "witness_interval_seconds": .number("1"),
            ]
            try await MonitorServers.run(log: log, logMembers: members) { servers in
                let (device, monitor) = try servers.device(witnesses: [witness.verifierKey], quorum: 1)
                let signedIn = try await device.signIn(with: .dev(subject: "witnessed-user"))
                _ = try await MonitorServers.settledCheckpoint(of: servers.a)
                try await monitor.checkNow()
                for id in signedIn.eventIDs {
                    #expect(await monitor.receiptState(of: id) == .pending(.belowQuorum(cosigned: [])))
                }
                let asked = try #require(servers.proxy.logAnswers.last { $0.0.path == "/v1/log/receipts" })
                #expect(asked.1.status == 202)
                #expect(asked.1.json["witnessed"] == .string("pending"))
                #expect(asked.1.header("Retry-After") == "1")
                #expect(witness.counts.refused >= 1, "the server asked the witness, which refused")

                witness.open()
                let deadline = ContinuousClock.now + .seconds(90)
                while ContinuousClock.now < deadline, !(await monitor.allVerified(signedIn.eventIDs)) {
                    try await Task.sleep(for: .seconds(1))
                    try await monitor.checkNow()
                }
                #expect(witness.counts.cosigned >= 1)
                for id in signedIn.eventIDs {
                    guard case .verified(let receipt) = await monitor.receiptState(of: id) else {
                        Issue.record("\(id): \(await monitor.receiptState(of: id))")
                        continue
                    }
                    #expect(receipt.witnessedBy == [witness.name])
                }
            }
        }
    }
}
