import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import AuthlogTesting
import Foundation
import Testing

/// The time and audience rules at their exact boundaries, with a fixed clock (leeway 60 s).
@Suite struct ClaimRuleTests {
    static let now: Int64 = 1_800_000_000

    static func verify(
        _ provider: FakeIdentityProvider,
        _ adjust: (inout [(name: String, value: JSONValue)]) -> Void,
        maximumAge: Int64? = nil
    ) async -> ProviderError.Reason? {
        let verifier = IDTokenVerifier(
            rules: IDTokenRules(
                issuers: ["https://issuer.example"],
                audiences: ["client", "web"],
                maximumAge: maximumAge
            ),
            keys: JWKSCache(url: provider.baseURL + "/jwks", fetcher: AsyncHTTPFetcher(timeout: .seconds(90)))
        )
        var claims = FakeIdentityProvider.claims(
            issuer: "https://issuer.example",
            audience: .string("client"),
            subject: "s",
            issuedAt: Self.now
        )
        adjust(&claims)
        do {
            _ = try await verifier.verify(
                try provider.sign(claims),
                now: Date(timeIntervalSince1970: TimeInterval(Self.now))
            )
            return nil
        } catch let error as ProviderError {
            return error.reason
        } catch {
            return .malformed
        }
    }

    static func set(_ name: String, _ value: JSONValue) -> (inout [(name: String, value: JSONValue)]) -> Void {
        { claims in
            claims.removeAll { $0.name == name }
            claims.append((name, value))
        }
    }

    @Test func boundaries() async throws {
        let provider = try await FakeIdentityProvider.start()
        let n = Self.now
        #expect(await Self.verify(provider, Self.set("exp", .number(String(n - 61)))) == .expired)
        #expect(await Self.verify(provider, Self.set("exp", .number(String(n - 59)))) == nil)
        #expect(await Self.verify(provider, Self.set("nbf", .number(String(n + 61)))) == .notYetValid)
        #expect(await Self.verify(provider, Self.set("nbf", .number(String(n + 60)))) == nil)
        #expect(await Self.verify(provider, Self.set("iat", .number(String(n + 61)))) == .issuedInFuture)
        #expect(await Self.verify(provider, Self.set("iat", .number(String(n - 661))), maximumAge: 600) == .tooOld)
        #expect(await Self.verify(provider, Self.set("iat", .number(String(n - 659))), maximumAge: 600) == nil)
        #expect(await Self.verify(provider, Self.set("exp", .string(String(n + 600)))) == .invalidClaim)
        #expect(await Self.verify(provider, Self.set("iat", .number("1800000000.5"))) == .invalidClaim)
        #expect(await Self.verify(provider, Self.set("iss", .string("https://issuer.example/"))) == .issuerMismatch)
        #expect(
            await Self.verify(provider, Self.set("aud", .array([.string("client"), .string("web")]))) == .azpMissing
        )
        #expect(
            await Self.verify(provider) {
                Self.set("aud", .array([.string("client"), .string("web")]))(&$0)
                $0.append(("azp", .string("elsewhere")))
            } == .azpMismatch
        )
        #expect(
            await Self.verify(provider) {
                Self.set("aud", .array([.string("client"), .string("web")]))(&$0)
                $0.append(("azp", .string("web")))
            } == nil
        )
        #expect(await Self.verify(provider, Self.set("sub", .string(""))) == .invalidClaim)
        await provider.stop()
    }

    @Test func appleBooleanClaimsMayBeStringsButNothingElse() async throws {
        let provider = try await FakeIdentityProvider.start()
        let apple = AppleProvider(
            settings: .init(clientIDs: ["app"]),
            keys: JWKSCache(url: provider.baseURL + "/jwks", fetcher: AsyncHTTPFetcher(timeout: .seconds(90))),
            fetcher: AsyncHTTPFetcher(timeout: .seconds(90))
        )
        func signIn(_ extra: [(name: String, value: JSONValue)]) async -> ProviderError.Reason? {
            let raw = "raw-nonce"
            let claims = FakeIdentityProvider.claims(
                issuer: "https://appleid.apple.com",
                audience: .string("app"),
                subject: "s",
                nonce: Hex.encode(SHA256.hash(Array(raw.utf8))),
                extra: extra
            )
            do {
                _ = try await apple.verify(SigninProof(idToken: try provider.sign(claims), rawNonce: raw))
                return nil
            } catch let error as ProviderError {
                return error.reason
            } catch {
                return .malformed
            }
        }
        #expect(await signIn([("email_verified", .string("true")), ("is_private_email", .bool(true))]) == nil)
        #expect(await signIn([("email_verified", .bool(false))]) == nil)
        #expect(await signIn([("email_verified", .string("yes"))]) == .invalidClaim)
        #expect(await signIn([("is_private_email", .number("1"))]) == .invalidClaim)
        await provider.stop()
    }

    @Test func appleClientSecretIsAnES256JWTWithTheDocumentedClaims() async throws {
        let key = try PrivateKey.generate(for: .es256)
        var settings = AppleProvider.Settings(clientIDs: ["com.example.app"])
        settings.teamID = "TEAM123456"
        settings.keyID = "KEY1234567"
        settings.privateKey = key
        let apple = AppleProvider(
            settings: settings,
            keys: JWKSCache(url: "http://127.0.0.1:9/unused", fetcher: AsyncHTTPFetcher(timeout: .seconds(90))),
            fetcher: AsyncHTTPFetcher(timeout: .seconds(90))
        )
        let secret = try apple.makeClientSecret(clientID: "com.example.app")
        let verified = try JWSVerifier(
            algorithm: .es256,
            keys: JWKSet(keys: [JWK(key: try key.publicKey(), kid: "KEY1234567")])
        )
        .verify(secret)
        #expect(verified.header["kid"]?.stringValue == "KEY1234567")
        #expect(verified.payload["iss"]?.stringValue == "TEAM123456")
        #expect(verified.payload["sub"]?.stringValue == "com.example.app")
        #expect(verified.payload["aud"]?.stringValue == "https://appleid.apple.com")
        let iat = try #require(verified.payload["iat"]?.integerValue)
        let exp = try #require(verified.payload["exp"]?.integerValue)
        #expect(exp > iat && exp - iat <= 15_777_000)
        #expect(Base64URL.decode(secret.split(separator: ".")[2])?.count == 64, "raw r‖s, not DER")
    }
}
