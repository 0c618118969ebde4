import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import AuthlogTesting
import Foundation
import Testing

/// Which refusals name the subject the provider vouched for (and so count toward its lockout): only those
/// of tokens whose signature, issuer and audience are the provider's.
@Suite struct VouchedSubjectTests {
    static let now: Int64 = 1_800_000_000

    static func refusal(
        _ provider: FakeIdentityProvider,
        key: PrivateKey? = nil,
        _ adjust: (inout [(name: String, value: JSONValue)]) -> Void
    ) async throws -> ProviderError {
        let verifier = IDTokenVerifier(
            rules: IDTokenRules(issuers: ["https://issuer.example"], audiences: ["client"], maximumAge: 600),
            keys: JWKSCache(url: provider.baseURL + "/jwks", fetcher: AsyncHTTPFetcher(timeout: .seconds(90)))
        )
        var claims = FakeIdentityProvider.claims(
            issuer: "https://issuer.example",
            audience: .string("client"),
            subject: "victim",
            issuedAt: Self.now
        )
        adjust(&claims)
        do {
            _ = try await verifier.verify(
                try provider.sign(claims, key: key),
                now: Date(timeIntervalSince1970: TimeInterval(Self.now))
            )
        } catch let error as ProviderError {
            return error
        }
        Issue.record("the token verified")
        return ProviderError(.malformed, "verified")
    }

    static func set(_ name: String, _ value: JSONValue) -> (inout [(name: String, value: JSONValue)]) -> Void {
        { claims in
            claims.removeAll { $0.name == name }
            claims.append((name, value))
        }
    }

    /// A ten-minute token that expired 61 s ago: past the leeway, well within its lifetime.
    static func expiredRecently(_ claims: inout [(name: String, value: JSONValue)]) {
        Self.set("iat", .number(String(Self.now - 661)))(&claims)
        Self.set("exp", .number(String(Self.now - 61)))(&claims)
    }

    @Test func timeFailuresOfTheProvidersOwnTokensNameTheSubject() async throws {
        let provider = try await FakeIdentityProvider.start()
        defer { Task { await provider.stop() } }
        let n = Self.now
        let expired = try await Self.refusal(provider, Self.expiredRecently)
        #expect(expired.reason == .expired && expired.vouchedSubject == "victim")
        let early = try await Self.refusal(provider, Self.set("nbf", .number(String(n + 61))))
        #expect(early.reason == .notYetValid && early.vouchedSubject == "victim")
        let old = try await Self.refusal(provider, Self.set("iat", .number(String(n - 700))))
        #expect(old.reason == .tooOld && old.vouchedSubject == "victim")
    }

    /// A genuine token that expired longer ago than its own lifetime (plus the leeway) is a replay, not an
    /// attempt at the identity: refused as expired, but vouching for nobody, so it never counts toward a lock.
    @Test func aStaleTokenOfTheProviderNamesNoSubject() async throws {
        let provider = try await FakeIdentityProvider.start()
        defer { Task { await provider.stop() } }
        let n = Self.now
        func expired(issuedAt: Int64, lifetime: Int64) async throws -> ProviderError {
            try await Self.refusal(provider) {
                Self.set("iat", .number(String(issuedAt)))(&$0)
                Self.set("exp", .number(String(issuedAt + lifetime)))(&$0)
            }
        }
        // A day-old token of ten minutes: expired 86,400 s ago.
        let dayOld = try await expired(issuedAt: n - 86_400 - 600, lifetime: 600)
        #expect(dayOld.reason == .expired && dayOld.vouchedSubject == nil)
        // The edge: expired exactly its lifetime (600 s) plus the leeway (60 s) ago is stale; a second less is not.
        let atTheEdge = try await expired(issuedAt: n - 1_260, lifetime: 600)
        #expect(atTheEdge.reason == .expired && atTheEdge.vouchedSubject == nil)
        let justInside = try await expired(issuedAt: n - 1_259, lifetime: 600)
        #expect(justInside.reason == .expired && justInside.vouchedSubject == "victim")
        // A token that lived a day counts for a day after it expired, and no longer than that however long it lived.
        let longLived = try await expired(issuedAt: n - 86_400 - 3_600, lifetime: 86_400)
        #expect(longLived.vouchedSubject == "victim")
        let yearLong = try await expired(issuedAt: n - 2 * 86_400 - 31_536_000, lifetime: 31_536_000)
        #expect(yearLong.reason == .expired && yearLong.vouchedSubject == nil)
        // A stale token's other claims do not matter: nobody is vouched for.
        let staleEarly = try await Self.refusal(provider) {
            Self.set("iat", .number(String(n - 90_000)))(&$0)
            Self.set("exp", .number(String(n - 89_400)))(&$0)
            Self.set("nbf", .number(String(n + 600)))(&$0)
        }
        #expect(staleEarly.vouchedSubject == nil)
    }

    @Test func refusalsBeforeTheProviderVouchedNameNoSubject() async throws {
        let provider = try await FakeIdentityProvider.start()
        defer { Task { await provider.stop() } }
        let forged = try await Self.refusal(provider, key: try PrivateKey.generate(for: .rs256)) { _ in }
        #expect(forged.reason == .invalidSignature)
        #expect(forged.message == "the signature does not verify")
        #expect(forged.vouchedSubject == nil)
        // Expired and forged: the signature is checked first.
        let forgedExpired = try await Self.refusal(provider, key: try PrivateKey.generate(for: .rs256)) {
            Self.expiredRecently(&$0)
        }
        #expect(forgedExpired.reason == .invalidSignature && forgedExpired.vouchedSubject == nil)
        // Expired, with another issuer or audience: the reason stays `expired`, but nobody vouched for the subject.
        let otherIssuer = try await Self.refusal(provider) {
            Self.expiredRecently(&$0)
            Self.set("iss", .string("https://evil.example"))(&$0)
        }
        #expect(otherIssuer.reason == .expired && otherIssuer.vouchedSubject == nil)
        let otherAudience = try await Self.refusal(provider) {
            Self.expiredRecently(&$0)
            Self.set("aud", .string("someone-else"))(&$0)
        }
        #expect(otherAudience.reason == .expired && otherAudience.vouchedSubject == nil)
        let wrongIssuer = try await Self.refusal(provider, Self.set("iss", .string("https://evil.example")))
        #expect(wrongIssuer.reason == .issuerMismatch && wrongIssuer.vouchedSubject == nil)
    }

    @Test func aNonceThatDoesNotFitNamesTheSubject() async throws {
        let fake = try await FakeIdentityProvider.start()
        defer { Task { await fake.stop() } }
        let gitlab = OIDCProvider(
            name: "gitlab",
            settings: .init(issuer: fake.baseURL, clientIDs: ["app"]),
            fetcher: AsyncHTTPFetcher(timeout: .seconds(90))
        )
        let claims = FakeIdentityProvider.claims(
            issuer: fake.baseURL,
            audience: .string("app"),
            subject: "42",
            nonce: "n-1"
        )
        await #expect(
            throws: ProviderError(.nonceMismatch, "the token's nonce does not fit the raw nonce").vouched(for: "42")
        ) {
            try await gitlab.verify(SigninProof(idToken: try fake.sign(claims), rawNonce: "n-2"))
        }
        let forged = try fake.sign(claims, key: try PrivateKey.generate(for: .rs256))
        await #expect(throws: ProviderError(.invalidSignature, "the signature does not verify")) {
            try await gitlab.verify(SigninProof(idToken: forged, rawNonce: "n-2"))
        }
    }
}
