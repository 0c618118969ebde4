import AuthlogAccounts
import AuthlogCore
import AuthlogProviders
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// Types that hold secrets never print them: not through `print`, interpolation, `String(reflecting:)` or
/// `dump`.
struct RedactionTests {
    /// Every way a value can end up in a log line or an error message.
    static func renderings(of value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return ["\(value)", String(describing: value), String(reflecting: value), dumped]
    }

    @Test func proofsTokenAnswersAndConfigurationsPrintRedacted() throws {
        let secret = "s3cr3t-value-that-must-not-leak"
        let proof = SigninProof(idToken: secret, rawNonce: secret, authorizationCode: secret, accessToken: secret)
        let answer = TokenResponse(
            userID: UUID(),
            sessionID: UUID(),
            isNewUser: true,
            accessToken: secret,
            accessTokenExpiresAt: .now(),
            refreshToken: secret,
            refreshTokenExpiresAt: .now()
        )
        let configuration = try JSONValue.members([
            "data_key": .string(secret), "subject_key": .string(secret),
            "introspection_clients": .array([.members(["id": "rs", "secret": .string(secret)])]),
            "providers": .members([
                "github": .members(["client_id": "gh", "client_secret": .string(secret)]),
                "kakao": .members([
                    "app_id": "1", "app_keys": .array(["k"]), "admin_key": .string(secret),
                    "client_secret": .string(secret),
                ]),
            ]),
        ]).decode(ServerConfiguration.self)
        var kakao = KakaoProvider.Settings(appID: "1", appKeys: ["k"], clientSecret: secret)
        kakao.adminKey = secret
        let values: [Any] = [
            proof, answer, configuration, configuration.providers as Any, configuration.introspectionClients as Any,
            kakao, GitHubProvider.Settings(clientID: "gh", clientSecret: secret),
        ]
        for value in values {
            for rendering in Self.renderings(of: value) {
                #expect(!rendering.contains(secret), "\(type(of: value)) printed a secret")
                #expect(rendering.contains("redacted"), "\(type(of: value)) printed \(rendering)")
            }
        }
    }
}
