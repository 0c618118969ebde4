import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import AuthlogTesting
import Foundation
import Testing

/// Provider paths the HTTP tests do not take: client-sent access tokens, GitLab identity tokens and its
/// discovery issuer rule, Google's hosted-domain rule.
@Suite struct ProviderRuleTests {
    /// The reason `body` was refused for, `nil` when it succeeded.
    static func reason(_ body: () async throws -> VerifiedIdentity) async -> ProviderError.Reason? {
        do {
            _ = try await body()
            return nil
        } catch let error as ProviderError {
            return error.reason
        } catch {
            return .malformed
        }
    }

    @Test func kakaoAccessTokenOfOurAppSignsInItsUser() async throws {
        let fake = try await FakeIdentityProvider.start()
        var settings = KakaoProvider.Settings(appID: "123456", appKeys: ["native-key"])
        settings.tokenInfoURL = fake.baseURL + "/v1/user/access_token_info"
        settings.userURL = fake.baseURL + "/v2/user/me"
        let kakao = KakaoProvider(
            settings: settings,
            keys: JWKSCache(url: fake.baseURL + "/jwks", fetcher: AsyncHTTPFetcher(timeout: .seconds(90))),
            fetcher: AsyncHTTPFetcher(timeout: .seconds(90))
        )
        fake.registerAccessToken("ours", for: .init(id: 4242, appID: "123456"))
        let identity = try await kakao.verify(SigninProof(accessToken: "ours"))
        #expect(identity.subject == "4242")
        #expect(identity.verifiedEmail == "k4242@example.com")
        #expect(await Self.reason { try await kakao.verify(SigninProof(accessToken: "unknown")) } == .providerError)
        await fake.stop()
    }

    @Test func gitHubAccessTokenIsCheckedWithTheApplicationsAPI() async throws {
        let fake = try await FakeIdentityProvider.start()
        fake.setGitHubClient(id: "client", secret: "secret")
        var settings = GitHubProvider.Settings(clientID: "client", clientSecret: "secret")
        settings.apiURL = fake.baseURL
        let github = GitHubProvider(settings: settings, fetcher: AsyncHTTPFetcher(timeout: .seconds(90)))
        fake.registerAccessToken("gho_ours", for: .init(id: 583231, appID: "client", email: "octo@example.com"))
        let identity = try await github.verify(SigninProof(accessToken: "gho_ours"))
        #expect(identity.subject == "583231")
        #expect(identity.verifiedEmail == "octo@example.com")
        fake.registerAccessToken("gho_theirs", for: .init(id: 1, appID: "another-app"))
        #expect(await Self.reason { try await github.verify(SigninProof(accessToken: "gho_theirs")) } == .appIDMismatch)
        #expect(
            await Self.reason { try await github.verify(SigninProof(accessToken: "gho_unknown")) } == .providerError
        )
        await fake.stop()
    }

    @Test func gitLabIdentityTokenAndTheDiscoveryIssuerRule() async throws {
        let fake = try await FakeIdentityProvider.start()
        let gitlab = OIDCProvider(
            name: "gitlab",
            settings: .init(issuer: fake.baseURL, clientIDs: ["app"]),
            fetcher: AsyncHTTPFetcher(timeout: .seconds(90))
        )
        let claims = FakeIdentityProvider.claims(
            issuer: fake.baseURL,
            audience: .string("app"),
            subject: "42",
            nonce: "n-1",
            lifetime: 120
        )
        let identity = try await gitlab.verify(SigninProof(idToken: try fake.sign(claims), rawNonce: "n-1"))
        #expect(identity.subject == "42")
        #expect(identity.nonceCheck == .matched)
        // A self-managed instance configured under another URL than its discovery document names.
        let misconfigured = OIDCProvider(
            name: "gitlab",
            settings: .init(
                issuer: "https://gitlab.example.com",
                clientIDs: ["app"],
                discoveryURL: fake.baseURL + "/.well-known/openid-configuration"
            ),
            fetcher: AsyncHTTPFetcher(timeout: .seconds(90))
        )
        let token = try fake.sign(claims)
        #expect(await Self.reason { try await misconfigured.verify(SigninProof(idToken: token)) } == .issuerMismatch)
        await fake.stop()
    }

    @Test func googleHostedDomainIsRequiredWhenConfigured() async throws {
        let fake = try await FakeIdentityProvider.start()
        let google = GoogleProvider(
            clientIDs: ["client"],
            hostedDomain: "example.com",
            keys: JWKSCache(url: fake.baseURL + "/jwks", fetcher: AsyncHTTPFetcher(timeout: .seconds(90)))
        )
        func token(_ extra: [(name: String, value: JSONValue)]) throws -> String {
            try fake.sign(
                FakeIdentityProvider.claims(
                    issuer: "https://accounts.google.com",
                    audience: .string("client"),
                    subject: "g",
                    extra: extra
                )
            )
        }
        let member = try token([("hd", .string("example.com"))])
        #expect(await Self.reason { try await google.verify(SigninProof(idToken: member)) } == nil)
        let consumer = try token([("email", .string("someone@example.com"))])
        #expect(await Self.reason { try await google.verify(SigninProof(idToken: consumer)) } == .hostedDomainMismatch)
        let otherDomain = try token([("hd", .string("evil.example"))])
        #expect(
            await Self.reason { try await google.verify(SigninProof(idToken: otherDomain)) } == .hostedDomainMismatch
        )
        await fake.stop()
    }
}
