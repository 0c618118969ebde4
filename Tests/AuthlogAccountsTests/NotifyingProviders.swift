import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import Foundation

/// The real Apple and Kakao providers, for the notification rules, over an in-process key set: no socket.
///
/// ProviderNotificationService needs the concrete providers (Apple's notification check, Kakao's admin key);
/// sign-ins in the same tests still go through the scripted providers of ``RuleHarness``.
struct NotifyingProviders: HTTPFetching {
    static let appleClient = "com.example.app"
    static let kakaoAppID = "424242"
    static let kakaoAdminKey = "kakao-admin-key"
    static let keysURL = "https://apple.test/auth/keys"

    /// Apple's signing key and a foreign one, made once: RSA key generation takes a while.
    private static let keys = Result {
        (apple: try PrivateKey.generate(for: .rs256), foreign: try PrivateKey.generate(for: .rs256))
    }

    let key: PrivateKey
    let foreignKey: PrivateKey
    let kid = "apple-test-key"

    init() throws {
        let keys = try Self.keys.get()
        self.key = keys.apple
        self.foreignKey = keys.foreign
    }

    /// The notification service over `rules`, with these providers.
    func notifications(for rules: RuleHarness) -> ProviderNotificationService {
        let apple = AppleProvider(
            settings: AppleProvider.Settings(clientIDs: [Self.appleClient]),
            keys: JWKSCache(url: Self.keysURL, fetcher: self),
            fetcher: self
        )
        var kakaoSettings = KakaoProvider.Settings(appID: Self.kakaoAppID, appKeys: ["kakao-app-key"])
        kakaoSettings.adminKey = Self.kakaoAdminKey
        let kakao = KakaoProvider(
            settings: kakaoSettings,
            keys: JWKSCache(url: "https://kakao.test/keys", fetcher: self),
            fetcher: self
        )
        return ProviderNotificationService(
            dependencies: rules.dependencies,
            signin: SigninService(dependencies: rules.dependencies, providers: [apple, kakao]),
            accounts: rules.accounts
        )
    }

    /// A server-to-server notification of `type` about `subject`, signed as Apple would (or with a foreign key).
    func appleNotification(
        subject: String = "001234.apple-user",
        type: String,
        audience: String = Self.appleClient,
        jti: String = UUID().uuidString,
        issuedAt: Int64 = Int64(Date().timeIntervalSince1970),
        signedWithForeignKey: Bool = false
    ) throws -> String {
        let events: JSONValue = .object([
            ("type", .string(type)), ("sub", .string(subject)),
            ("event_time", .number(String(Int64(Date().timeIntervalSince1970 * 1000)))),
        ])
        let claims: JSONValue = .object([
            ("iss", .string("https://appleid.apple.com")), ("aud", .string(audience)),
            ("iat", .number(String(issuedAt))), ("jti", .string(jti)), ("events", .string(events.canonicalText)),
        ])
        let key = signedWithForeignKey ? self.foreignKey : self.key
        return try JWSSigner(key: key, kid: self.kid).sign(claims)
    }

    func fetch(_ request: OutboundRequest) async throws(ProviderError) -> OutboundResponse {
        guard request.url == Self.keysURL else { return OutboundResponse(status: 404) }
        do {
            let keys = try JWKSet(keys: [JWK(key: try self.key.publicKey(), kid: self.kid)]).json()
            return OutboundResponse(
                status: 200,
                headers: [("Content-Type", "application/json")],
                body: keys.canonicalBytes
            )
        } catch {
            throw ProviderError(.providerUnavailable, "the test key set could not be made")
        }
    }
}
