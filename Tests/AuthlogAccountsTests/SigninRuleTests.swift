import AuthlogAccounts
import AuthlogCore
import Foundation
import Testing

/// Sign-in and session lifetimes, decided by SigninService and SessionSweeper over the in-memory stores.
struct SigninRuleTests {
    @Test func aFirstSignInRegistersTheUserAndTheNextFindsThem() async throws {
        let rules = try RuleHarness()
        let first = try await rules.signIn("alice")
        #expect(first.isNewUser)
        #expect(rules.eventTypes.contains(.userRegistered))
        let again = try await rules.signIn("alice")
        #expect(!again.isNewUser)
        #expect(again.userID == first.userID)
        #expect(again.sessionID != first.sessionID)
        #expect(rules.eventTypes.filter { $0 == .userRegistered }.count == 1)
        let bob = try await rules.signIn("bob")
        #expect(bob.userID != first.userID)
    }

    @Test func anUnknownProviderIsRefusedAndRecorded() async throws {
        let rules = try RuleHarness()
        let refusal = await #expect(throws: ServiceError.self) {
            try await rules.signin.signIn(
                provider: "nowhere",
                proof: .init(subject: "alice"),
                rememberMe: false,
                metadata: RuleHarness.request
            )
        }
        #expect(refusal?.status.code == 404)
        #expect(rules.eventTypes == [.signinFailed])
    }

    @Test func aProofTheProviderRefusesIsAFailedSignInAndNoSession() async throws {
        let rules = try RuleHarness()
        let refusal = await #expect(throws: ServiceError.self) { try await rules.signIn("") }
        #expect(refusal?.status.code == 401)
        #expect(rules.eventTypes == [.signinFailed])
        #expect(rules.stores.events.events(ofType: .signinSucceeded).isEmpty)
        #expect(try await rules.stores.sessions.userExists(UUID()) == false)
    }

    @Test func theSweeperExpiresAnIdleSessionOnceAndARefreshAfterwardsFails() async throws {
        let rules = try RuleHarness()
        let plain = try await rules.signIn("alice", rememberMe: false)
        let remembered = try await rules.signIn("bob", rememberMe: true)
        let idle = ServiceSettings().lifetimes.plain.idle
        let later = Timestamp(microsecondsSinceEpoch: Timestamp.now().microsecondsSinceEpoch + (idle + 60) * 1_000_000)
        #expect(try await rules.sweeper.sweep(at: later) == 1)
        #expect(try await rules.sweeper.sweep(at: later) == 0)
        #expect(try await rules.stores.sessions.session(plain.sessionID)?.state == .expired)
        #expect(try await rules.stores.sessions.session(remembered.sessionID)?.state == .active)
        let refused = await #expect(throws: ServiceError.self) {
            try await rules.tokens.refresh(plain.refreshToken, metadata: RuleHarness.request)
        }
        #expect(refused?.code == "invalid_grant")
    }
}
