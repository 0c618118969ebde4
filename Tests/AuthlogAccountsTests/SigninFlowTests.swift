import AuthlogAccounts
import AuthlogCore
import AuthlogProviders
import Foundation
import Testing

/// For every provider name: sign in, refresh, log out — the events SigninService and TokenService record.
struct SigninFlowTests {
    @Test(arguments: ["apple", "google", "gitlab", "kakao", "github", "firebase", "dev"])
    func signInRefreshLogout(provider: String) async throws {
        let rules = try RuleHarness()
        let scripted = [rules.apple, rules.google, rules.gitlab, rules.kakao, rules.github, rules.firebase]
        scripted.first { $0.name == provider }?.accept(
            "subject-1",
            upstream: provider == "firebase" ? "github.com" : nil
        )
        let metadata = RequestMetadata(
            ip: IPAddress("203.0.113.7"),
            userAgent: "ExampleApp/1.0 (iPhone)",
            requestID: "flow-1"
        )
        let signin = try await rules.signIn(with: provider, "subject-1", metadata: metadata)
        #expect(signin.isNewUser)
        #expect(signin.refreshToken.hasPrefix("alr_"))
        let refreshed = try await rules.tokens.refresh(signin.refreshToken, metadata: metadata)
        #expect(refreshed.sessionID == signin.sessionID)
        #expect(refreshed.refreshToken != signin.refreshToken)
        try await rules.tokens.logout(bearer: refreshed.accessToken, scope: .this, metadata: metadata)

        let events = rules.stores.events.events
        #expect(
            events.map(\.type) == [.userRegistered, .signinSucceeded, .tokenIssued, .tokenRefreshed, .sessionLoggedOut]
        )
        for event in events {
            #expect(event.provider == provider, "\(event.type)")
            #expect(event.userID == signin.userID, "\(event.type)")
            #expect(event.ip == IPAddress("203.0.113.7"), "\(event.type)")
            #expect(event.userAgent == "ExampleApp/1.0 (iPhone)", "\(event.type)")
            #expect(event.outcome == .success, "\(event.type)")
            #expect(event.requestID != nil, "\(event.type)")
        }
        for event in events.dropFirst() { #expect(event.sessionID == signin.sessionID, "\(event.type)") }
        #expect(events[0].stream.rawValue == "user-\(signin.userID.lowercased)")
        #expect(events[1].stream.rawValue == "session-\(signin.sessionID.lowercased)")
        if provider == "firebase" { #expect(events[1].data["upstream_provider"]?.stringValue == "github.com") }
        // No token is stored in clear.
        let stored = events.map(\.data.canonicalText).joined()
        #expect(!stored.contains(signin.refreshToken) && !stored.contains(refreshed.accessToken))
        #expect(!stored.contains(refreshed.refreshToken))
    }

    @Test func concurrentFirstSignInsOfOneIdentityRegisterOneUser() async throws {
        let rules = try RuleHarness()
        let answers = try await withThrowingTaskGroup(of: TokenResponse.self) { group in
            for _ in 0..<12 { group.addTask { try await rules.signIn("carol") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 12)
        #expect(Set(answers.map(\.userID)).count == 1)
        #expect(answers.filter(\.isNewUser).count == 1)
        #expect(rules.events(.userRegistered).count == 1)
    }
}
