import AuthlogCore
import AuthlogProviders
import Foundation
import Synchronization
import Testing

@testable import AuthlogAccounts

/// Concurrent first sign-ins of one new identity: the one that registers the user stores the identity's email
/// hash once it has committed, and another sign-in of the same identity that finds that email must sign in as
/// that user, not be refused as if another user held the address.
struct SigninRaceTests {
    static let subject = "1098765432"
    static let email = "g@gmail.com"

    /// Signs `subject` in with Google through `rules`, while another sign-in of the same identity runs whole
    /// between this one's reading of the identity and its reading of the email's owners; both outcomes.
    static func raceTwoFirstSignins(
        _ rules: RuleHarness
    ) async -> (first: Result<TokenResponse, ServiceError>?, second: Result<TokenResponse, ServiceError>) {
        let first = Mutex<Result<TokenResponse, ServiceError>?>(nil)
        let interleaving = Interleaving {
            let result: Result<TokenResponse, ServiceError>
            do throws(ServiceError) {
                result = .success(try await rules.signIn(with: "google", Self.subject))
            } catch {
                result = .failure(error)
            }
            first.withLock { $0 = result }
        }
        let racing = SigninService(
            dependencies: rules.dependencies(
                emails: InterleavedEmailOwnership(base: rules.stores.emails, interleaving: interleaving)
            ),
            providers: [rules.google]
        )
        let second: Result<TokenResponse, ServiceError>
        do throws(ServiceError) {
            second = .success(
                try await racing.signIn(
                    provider: "google",
                    proof: SigninProof(subject: Self.subject),
                    rememberMe: true,
                    metadata: RuleHarness.request
                )
            )
        } catch {
            second = .failure(error)
        }
        return (first.withLock { $0 }, second)
    }

    @Test func aSigninThatFindsItsEmailJustRegisteredByItsOwnIdentitySignsInAsThatUser() async throws {
        let rules = try RuleHarness()
        rules.google.accept(Self.subject, email: Self.email)
        let (first, second) = await Self.raceTwoFirstSignins(rules)
        let registered = try #require(try first?.get())
        let signedIn = try second.get()
        #expect(registered.isNewUser && !signedIn.isNewUser)
        #expect(signedIn.userID == registered.userID && signedIn.sessionID != registered.sessionID)
        #expect(rules.events(.userRegistered).map(\.userID) == [registered.userID])
        #expect(rules.events(.signinSucceeded).count == 2)
        #expect(rules.events(.signinFailed).isEmpty)
        #expect(rules.events(.identityLinked).isEmpty)

        // Another identity with the same address still gets the documented answer.
        rules.google.accept("5550001", email: Self.email)
        let refusal = await #expect(throws: ServiceError.self) { try await rules.signIn(with: "google", "5550001") }
        #expect(refusal?.status.code == 409 && refusal?.code == "account_exists")
        #expect(refusal?.extraMembers.first { $0.name == "providers" }?.value == .array([.string("google")]))
        #expect(rules.events(.signinFailed).map(\.reason) == ["account_exists"])
        #expect(rules.events(.userRegistered).count == 1)
    }

    @Test func withLinkingByEmailTheRaceRecordsNoLinkOfTheIdentityToItsOwnUser() async throws {
        var settings = RuleHarness.settings
        settings.linkByVerifiedEmail = true
        let rules = try RuleHarness(settings: settings)
        rules.google.accept(Self.subject, email: Self.email)
        let (first, second) = await Self.raceTwoFirstSignins(rules)
        let registered = try #require(try first?.get())
        #expect(try second.get().userID == registered.userID)
        #expect(rules.events(.userRegistered).count == 1)
        #expect(rules.events(.identityLinked).isEmpty, "the identity is the user's own, not linked by its email")
    }
}
