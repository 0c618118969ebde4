import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import AuthlogTesting
import Foundation
import Synchronization
import Testing

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { self.current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { self.current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// The key cache against a real fake provider on 127.0.0.1.
@Suite struct JWKSCacheTests {
    static func cache(_ provider: FakeIdentityProvider, clock: TestClock) -> JWKSCache {
        JWKSCache(url: provider.baseURL + "/jwks", fetcher: AsyncHTTPFetcher(timeout: .seconds(90)), now: { clock.now })
    }

    /// A verifier over a fresh cache of `provider`, and valid claims for it.
    static func verifierAndClaims(
        _ provider: FakeIdentityProvider,
        clock: TestClock
    )
        -> (IDTokenVerifier, [(name: String, value: JSONValue)])
    {
        let verifier = IDTokenVerifier(
            rules: IDTokenRules(issuers: ["https://issuer.example"], audiences: ["client"]),
            keys: Self.cache(provider, clock: clock)
        )
        let claims = FakeIdentityProvider.claims(
            issuer: "https://issuer.example",
            audience: .string("client"),
            subject: "s",
            issuedAt: Int64(clock.now.timeIntervalSince1970)
        )
        return (verifier, claims)
    }

    @Test func maxAgeIsHonouredWithinItsBounds() async throws {
        let provider = try await FakeIdentityProvider.start()
        let clock = TestClock()
        // Too short: clamped up to five minutes.
        provider.cacheControl = "public, max-age=10"
        let cache = Self.cache(provider, clock: clock)
        _ = try await cache.currentKeys()
        clock.advance(299)
        _ = try await cache.currentKeys()
        #expect(provider.jwksFetches == 1)
        clock.advance(2)
        _ = try await cache.currentKeys()
        #expect(provider.jwksFetches == 2)
        // Too long: clamped down to a day.
        provider.cacheControl = "max-age=9999999"
        clock.advance(301)
        _ = try await cache.currentKeys()
        #expect(provider.jwksFetches == 3)
        clock.advance(86_399)
        _ = try await cache.currentKeys()
        #expect(provider.jwksFetches == 3)
        clock.advance(2)
        _ = try await cache.currentKeys()
        #expect(provider.jwksFetches == 4)
        await provider.stop()
    }

    @Test func staleKeysAreServedForABoundedTimeWhenTheProviderIsDown() async throws {
        let provider = try await FakeIdentityProvider.start()
        let clock = TestClock()
        provider.cacheControl = nil
        let cache = Self.cache(provider, clock: clock)
        let fresh = try await cache.currentKeys()
        provider.isDown = true
        clock.advance(3_601)
        let stale = try await cache.currentKeys()
        #expect(stale.keys.map(\.kid) == fresh.keys.map(\.kid))
        let statistics = await cache.statistics
        #expect(statistics.fetches == 2 && statistics.failures == 1)
        clock.advance(86_400)
        await #expect(throws: ProviderError.self) { try await cache.currentKeys() }
        do throws(ProviderError) {
            _ = try await cache.currentKeys()
        } catch {
            #expect(error.reason == .providerUnavailable)
        }
        await provider.stop()
    }

    @Test func manyUnknownKidsCauseOneRefetchPerCooldown() async throws {
        let provider = try await FakeIdentityProvider.start()
        let clock = TestClock()
        let (verifier, claims) = Self.verifierAndClaims(provider, clock: clock)
        let stranger = try PrivateKey.generate(for: .rs256)
        let tokens = try (0..<100).map { try provider.sign(claims, kid: "random-\($0)", key: stranger) }
        let reasons = await withTaskGroup(of: ProviderError.Reason?.self) { group in
            for token in tokens {
                group.addTask {
                    do throws(ProviderError) {
                        _ = try await verifier.verify(token, now: clock.now)
                        return nil
                    } catch {
                        return error.reason
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(reasons.allSatisfy { $0 == .unknownKid })
        #expect(provider.jwksFetches == 2, "the first fetch and one refetch, shared by all")
        clock.advance(61)
        _ = try? await verifier.verify(tokens[0], now: clock.now)
        #expect(provider.jwksFetches == 3, "after the cooldown one more refetch is allowed")
        await provider.stop()
    }

    @Test func rotatedMaterialUnderTheSameKidIsPickedUpWithOneRefetch() async throws {
        let provider = try await FakeIdentityProvider.start()
        let clock = TestClock()
        let (verifier, claims) = Self.verifierAndClaims(provider, clock: clock)
        _ = try await verifier.verify(try provider.sign(claims), now: clock.now)
        let newKey = try provider.rotateKey(kid: provider.kid)
        let verified = try await verifier.verify(try provider.sign(claims, key: newKey), now: clock.now)
        #expect(verified.subject == "s")
        #expect(provider.jwksFetches == 2)
        await provider.stop()
    }
}
