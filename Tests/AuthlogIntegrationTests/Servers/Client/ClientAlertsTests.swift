import AuthlogClient
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// Sign-in alerts through AuthlogClient against a real server: each client's per-install device id goes with
    /// its sign-ins, so a second install of the same user (same user agent, same address) is a new device, raised
    /// as `.unusualSignin`, and "not me" on it signs every device out.
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct ClientAlertsTests {
        @Test func aSecondInstallIsANewDeviceRaisedAsAnUnusualSignin() async throws {
            try await ClientTestServer.run { server in
                let phone = AuthlogClient(baseURL: server.baseURL, tokenStore: InMemoryTokenStore())
                let first = try await phone.signIn(with: .dev(subject: "maya"))
                #expect(first.signinAlert == nil, "a first sign-in is never judged")
                // The same install again: its id is the same, nothing is unusual.
                let again = try await phone.signIn(with: .dev(subject: "maya"))
                #expect(again.signinAlert == nil)

                let other = AuthlogClient(baseURL: server.baseURL, tokenStore: InMemoryTokenStore())
                var events = other.sessionEvents().makeAsyncIterator()
                #expect(await events.next() == .initialSession(nil))
                let second = try await other.signIn(with: .dev(subject: "maya"))
                let alert = try #require(second.signinAlert)
                #expect(alert.judgements == [.newDevice])
                #expect(
                    await events.next() == .signedIn(userID: second.tokens.userID, sessionID: second.tokens.sessionID)
                )
                #expect(await events.next() == .unusualSignin(alert))

                // The first device learns of it from the activity (the answer's alert went to the other
                // install), and the user says it was not them from there: both are signed out.
                let seen = try #require(try await phone.activity().entries.first { $0.alert != nil })
                #expect(seen.alert?.judgements == [.newDevice] && seen.alert?.decision == "recorded")
                #expect(seen.alert?.judgedEventID != nil && seen.signinAlert?.eventID == alert.eventID)
                let ended = try await phone.reportNotMe(eventID: try #require(seen.signinAlert).eventID)
                #expect(Set(ended) == [first.tokens.sessionID, again.tokens.sessionID, second.tokens.sessionID])
                await #expect(throws: AuthlogClientError.self) { try await other.refresh() }
            }
        }
    }
}
