import AuthlogCore
import Foundation
import Synchronization
import Testing

@testable import AuthlogAccounts

/// The per-family gate (`rate_limits.per_family`) as TokenService takes it: once per refresh request, however
/// many times the request decides again after losing a race on its session stream.
struct RefreshFamilyGateTests {
    /// A gate that admits everything and remembers who asked.
    final class CountingGate: RefreshFamilyGate {
        private let admissions = Mutex<[(family: String, requestID: String)]>([])

        func admitRefresh(family: String, requestID: String) throws(ServiceError) {
            self.admissions.withLock { $0.append((family, requestID)) }
        }

        /// The request ids admitted, in order.
        var requestIDs: [String] { self.admissions.withLock { $0.map(\.requestID) } }
        /// The families admitted.
        var families: Set<String> { self.admissions.withLock { Set($0.map(\.family)) } }
    }

    @Test func aRefreshThatLosesTheRotationTakesItsFamilyOnceAndGetsTheWinnersPair() async throws {
        let rules = try RefreshGraceTests.rules()
        let signin = try await rules.signIn("alice")
        let gate = CountingGate()
        let winner = Mutex<Result<TokenResponse, ServiceError>?>(nil)
        let winning = RuleHarness.request
        // The other request rotates the token after this one read it and before this one appends: this one
        // loses the expected-version check, reads again, finds the token rotated and replays the pair.
        let interleaving = Interleaving {
            let result: Result<TokenResponse, ServiceError>
            do throws(ServiceError) {
                let tokens = rules.tokens.gated(by: gate)
                result = .success(try await tokens.refresh(signin.refreshToken, metadata: winning))
            } catch {
                result = .failure(error)
            }
            winner.withLock { $0 = result }
        }
        let losing = RuleHarness.request
        let loser = TokenService(
            dependencies: rules.dependencies(
                store: InterleavedEventStore(base: rules.stores.events, interleaving: interleaving)
            )
        ).gated(by: gate)
        let replayed = try await loser.refresh(signin.refreshToken, metadata: losing)
        let rotated = try #require(try winner.withLock { $0 }?.get())
        #expect(replayed.refreshToken == rotated.refreshToken && replayed.accessToken == rotated.accessToken)
        #expect(rules.events(.tokenRefreshed).map(\.requestID) == [winning.requestID])
        #expect(rules.events(.tokenRefreshReplayed).map(\.requestID) == [losing.requestID])
        #expect(rules.events(.tokenReuseDetected).isEmpty)
        // One admission per request: the losing request's second decision took nothing more.
        #expect(gate.requestIDs.sorted() == [winning.requestID, losing.requestID].sorted())
        #expect(gate.families.count == 1)
    }

    @Test func eachRefreshOfALoopTakesItsFamilyOnce() async throws {
        let rules = try RefreshGraceTests.rules()
        let gate = CountingGate()
        let tokens = rules.tokens.gated(by: gate)
        var token = try await rules.signIn("looping").refreshToken
        for _ in 0..<5 { token = try await tokens.refresh(token, metadata: RuleHarness.request).refreshToken }
        #expect(gate.requestIDs.count == 5)
        #expect(Set(gate.requestIDs).count == 5)
    }

    @Test func anUnknownTokenTakesNoFamily() async throws {
        let rules = try RefreshGraceTests.rules()
        let gate = CountingGate()
        let refusal = await #expect(throws: ServiceError.self) {
            try await rules.tokens.gated(by: gate).refresh("alr_unknown", metadata: RuleHarness.request)
        }
        #expect(refusal?.code == "invalid_grant")
        #expect(gate.requestIDs.isEmpty)
    }
}
