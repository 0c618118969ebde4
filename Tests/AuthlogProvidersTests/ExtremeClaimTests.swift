import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import AuthlogTesting
import Foundation
import Testing

/// Signed tokens whose NumericDate claims sit at the ends of Int64 (or far outside any real date) are
/// refused with `invalid_claim`; before, the claim checks overflowed and the process died.
@Suite struct ExtremeClaimTests {
    static let extremes: [String] = [
        String(Int64.max), String(Int64.max - 1), String(Int64.max - 59), String(Int64.min), String(Int64.min + 1),
        String(Int64.min + 60), "-10000000000000", "10000000000000", "253402300800", "-1",
    ]

    @Test(arguments: ["exp", "nbf", "iat", "auth_time"])
    func anOutOfRangeTimeClaimIsInvalid(claim: String) async throws {
        let provider = try await FakeIdentityProvider.start()
        for value in Self.extremes {
            #expect(
                await ClaimRuleTests.verify(provider, ClaimRuleTests.set(claim, .number(value))) == .invalidClaim,
                "\(claim) = \(value)"
            )
        }
        // Numbers beyond Int64 are not integers at all.
        #expect(
            await ClaimRuleTests.verify(provider, ClaimRuleTests.set(claim, .number("9223372036854775808")))
                == .invalidClaim
        )
        await provider.stop()
    }

    @Test func theEdgesOfTheAcceptedRangeStillFollowTheTimeRules() async throws {
        let provider = try await FakeIdentityProvider.start()
        // The last second of 9999 is a valid exp; the first second of 1970 a valid (if very old) iat.
        #expect(await ClaimRuleTests.verify(provider, ClaimRuleTests.set("exp", .number("253402300799"))) == nil)
        #expect(
            await ClaimRuleTests.verify(provider, ClaimRuleTests.set("iat", .number("0")), maximumAge: 600) == .tooOld
        )
        #expect(await ClaimRuleTests.verify(provider, ClaimRuleTests.set("exp", .number("0"))) == .expired)
        #expect(
            await ClaimRuleTests.verify(provider, ClaimRuleTests.set("nbf", .number("253402300799"))) == .notYetValid
        )
        await provider.stop()
    }

    @Test func hugeLeewayAndMaximumAgeCannotOverflowEither() async throws {
        let provider = try await FakeIdentityProvider.start()
        let verifier = IDTokenVerifier(
            rules: IDTokenRules(
                issuers: ["https://issuer.example"],
                audiences: ["client"],
                maximumAge: .max,
                leeway: .max
            ),
            keys: JWKSCache(url: provider.baseURL + "/jwks", fetcher: AsyncHTTPFetcher(timeout: .seconds(90)))
        )
        let claims = FakeIdentityProvider.claims(
            issuer: "https://issuer.example",
            audience: .string("client"),
            subject: "s",
            issuedAt: ClaimRuleTests.now
        )
        let verified = try await verifier.verify(
            try provider.sign(claims),
            now: Date(timeIntervalSince1970: TimeInterval(ClaimRuleTests.now))
        )
        #expect(verified.subject == "s")
        // A clock far outside the range is clamped, not trusted to do arithmetic with.
        await #expect(throws: ProviderError.self) {
            _ = try await verifier.verify(try provider.sign(claims), now: Date(timeIntervalSince1970: 1e300))
        }
        await provider.stop()
    }

    @Test func timestampArithmeticSaturates() {
        let now = Timestamp(microsecondsSinceEpoch: 1_800_000_000_000_000)
        #expect(now.adding(seconds: .max).microsecondsSinceEpoch == .max)
        #expect(now.adding(seconds: .min).microsecondsSinceEpoch == .min)
        #expect(now.adding(seconds: 10).microsecondsSinceEpoch == 1_800_000_010_000_000)
        #expect(Timestamp(Date(timeIntervalSince1970: 1e300)).microsecondsSinceEpoch > 0)
        #expect(Timestamp(iso8601: "0000-01-01T00:00:00Z") == nil)
        #expect(Timestamp(iso8601: "0001-01-01T00:00:00Z") != nil)
    }
}

/// OpenID Connect Core §10.1: `kid` is needed only when the key set holds more than one key.
@Suite struct KeyIDRuleTests {
    static func reason(_ body: () async throws -> Void) async -> ProviderError.Reason? {
        do {
            try await body()
            return nil
        } catch let error as ProviderError {
            return error.reason
        } catch {
            return nil
        }
    }

    @Test func aTokenWithoutKidIsCheckedWithTheOnlyKey() async throws {
        let provider = try await FakeIdentityProvider.start()
        let claims = FakeIdentityProvider.claims(
            issuer: "https://issuer.example",
            audience: .string("client"),
            subject: "s",
            issuedAt: ClaimRuleTests.now
        )
        let keys = JWKSCache(url: provider.baseURL + "/jwks", fetcher: AsyncHTTPFetcher(timeout: .seconds(90)))
        let verifier = IDTokenVerifier(
            rules: IDTokenRules(issuers: ["https://issuer.example"], audiences: ["client"]),
            keys: keys
        )
        let key = try #require(provider.key(kid: provider.kid))
        let noKid = try JWSSigner(key: key, kid: nil).sign(.object(claims))
        let now = Date(timeIntervalSince1970: TimeInterval(ClaimRuleTests.now))
        #expect(try await verifier.verify(noKid, now: now).subject == "s")
        // Signed by someone else, it fails on the signature, after at most one refetch.
        let forged = try JWSSigner(key: try PrivateKey.generate(for: .rs256), kid: nil).sign(.object(claims))
        #expect(await Self.reason { _ = try await verifier.verify(forged, now: now) } == .invalidSignature)
        #expect(await Self.reason { _ = try await verifier.verify(forged, now: now) } == .invalidSignature)
        #expect(await keys.statistics.fetches <= 2)
        // With a second key in the set, a token must say which one it was signed with.
        _ = try provider.rotateKey(kid: "key-2")
        let fresh = IDTokenVerifier(
            rules: IDTokenRules(issuers: ["https://issuer.example"], audiences: ["client"]),
            keys: JWKSCache(url: provider.baseURL + "/jwks", fetcher: AsyncHTTPFetcher(timeout: .seconds(90)))
        )
        #expect(await Self.reason { _ = try await fresh.verify(noKid, now: now) } == .malformed)
        await provider.stop()
    }
}
