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

    @Test func timeFailuresOfTheProvidersOwnTokensNameTheSubject() async throws {
        let provider = try await FakeIdentityProvider.start()
        defer { Task { await provider.stop() } }
        let n = Self.now
        let expired = try await Self.refusal(provider, Self.set("exp", .number(String(n - 61))))
        #expect(expired.reason == .expired && expired.vouchedSubject == "victim")
        let early = try await Self.refusal(provider, Self.set("nbf", .number(String(n + 61))))
        #expect(early.reason == .notYetValid && early.vouchedSubject == "victim")
        let old = try await Self.refusal(provider, Self.set("iat", .number(String(n - 700))))
        #expect(old.reason == .tooOld && old.vouchedSubject == "victim")
    }

    @Test func refusalsBeforeTheProviderVouchedNameNoSubject() async throws {
        let provider = try await FakeIdentityProvider.start()
        defer { Task { await provider.stop() } }
        let n = Self.now
        let forged = try await Self.refusal(provider, key: try PrivateKey.generate(for: .rs256)) { _ in }
        #expect(forged.reason == .invalidSignature)
        #expect(forged.message == "the signature does not verify")
        #expect(forged.vouchedSubject == nil)
        // Expired and forged: the signature is checked first.
        let forgedExpired = try await Self.refusal(provider, key: try PrivateKey.generate(for: .rs256)) {
            Self.set("exp", .number(String(n - 61)))(&$0)
        }
        #expect(forgedExpired.reason == .invalidSignature && forgedExpired.vouchedSubject == nil)
        // Expired, with another issuer or audience: the reason stays `expired`, but nobody vouched for the subject.
        let otherIssuer = try await Self.refusal(provider) {
            Self.set("exp", .number(String(n - 61)))(&$0)
            Self.set("iss", .string("https://evil.example"))(&$0)
        }
        #expect(otherIssuer.reason == .expired && otherIssuer.vouchedSubject == nil)
        let otherAudience = try await Self.refusal(provider) {
            Self.set("exp", .number(String(n - 61)))(&$0)
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
