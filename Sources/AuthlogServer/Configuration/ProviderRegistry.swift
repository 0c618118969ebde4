import AuthlogCrypto
public import AuthlogProviders
import Foundation

/// The identity providers a configuration enables.
public struct ProviderRegistry: Sendable {
    /// The enabled providers.
    public let providers: [any IdentityProvider]

    /// Names the built-in providers use; a generic OIDC provider must pick another.
    static let builtInNames: Set<String> = [
        "apple", "google", "gitlab", "kakao", "github", "firebase", "dev", "unknown",
    ]

    /// Builds the providers of `settings`; `development` adds the `dev` provider.
    /// - Throws: ``ServerConfiguration/Invalid`` naming a missing or bad setting.
    public init(
        settings: ServerConfiguration.ProviderSettings?,
        development: Bool,
        fetcher: any HTTPFetching
    ) throws(ServerConfiguration.Invalid) {
        var providers: [any IdentityProvider] = []
        func cache(_ url: String) -> JWKSCache { JWKSCache(url: url, fetcher: fetcher) }
        if let apple = settings?.apple {
            var options = AppleProvider.Settings(clientIDs: Set(apple.clientIDs))
            options.issuer = apple.issuer ?? options.issuer
            options.tokenURL = apple.tokenURL ?? options.tokenURL
            options.revokeURL = apple.revokeURL ?? options.revokeURL
            options.teamID = apple.teamID
            options.keyID = apple.keyID
            options.privateKey = try Self.privateKey(pem: apple.privateKey, file: apple.privateKeyFile, what: "apple")
            providers.append(
                AppleProvider(
                    settings: options,
                    keys: cache(apple.jwksURL ?? ConfigurationDefaults.appleJWKSURL),
                    fetcher: fetcher
                )
            )
        }
        if let google = settings?.google {
            providers.append(
                GoogleProvider(
                    clientIDs: Set(google.clientIDs),
                    hostedDomain: google.hostedDomain,
                    keys: cache(google.jwksURL ?? ConfigurationDefaults.googleJWKSURL)
                )
            )
        }
        if let gitlab = settings?.gitlab {
            let issuer = gitlab.issuer ?? ConfigurationDefaults.gitlabIssuer
            providers.append(
                OIDCProvider(
                    name: "gitlab",
                    settings: .init(
                        issuer: issuer,
                        clientIDs: Set(gitlab.clientIDs),
                        clientSecret: gitlab.clientSecret,
                        discoveryURL: gitlab.discoveryURL
                    ),
                    fetcher: fetcher
                )
            )
        }
        if let kakao = settings?.kakao {
            var options = KakaoProvider.Settings(
                appID: kakao.appID,
                appKeys: Set(kakao.appKeys),
                clientSecret: kakao.clientSecret
            )
            options.issuer = kakao.issuer ?? options.issuer
            options.tokenURL = kakao.tokenURL ?? options.tokenURL
            options.tokenInfoURL = kakao.tokenInfoURL ?? options.tokenInfoURL
            options.userURL = kakao.userURL ?? options.userURL
            options.unlinkURL = kakao.unlinkURL ?? options.unlinkURL
            options.adminKey = kakao.adminKey.flatMap { $0.isEmpty ? nil : $0 }
            providers.append(
                KakaoProvider(
                    settings: options,
                    keys: cache(kakao.jwksURL ?? ConfigurationDefaults.kakaoJWKSURL),
                    fetcher: fetcher
                )
            )
        }
        if let github = settings?.github {
            guard let secret = github.clientSecret else {
                throw ServerConfiguration.Invalid(
                    description: "providers.github needs client_secret (or AUTHLOG_GITHUB_CLIENT_SECRET)"
                )
            }
            var options = GitHubProvider.Settings(clientID: github.clientID, clientSecret: secret)
            options.tokenURL = github.tokenURL ?? options.tokenURL
            options.apiURL = github.apiURL ?? options.apiURL
            providers.append(GitHubProvider(settings: options, fetcher: fetcher))
        }
        if let firebase = settings?.firebase {
            let url = firebase.jwksURL ?? ConfigurationDefaults.firebaseJWKSURL
            providers.append(FirebaseProvider(projectID: firebase.projectID, keys: cache(url)))
        }
        for (name, oidc) in (settings?.oidc ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard !Self.builtInNames.contains(name), !name.isEmpty,
                name.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F })
            else {
                throw ServerConfiguration.Invalid(
                    description: "providers.oidc.\(name): names are [a-z0-9_] and not a built-in provider's"
                )
            }
            guard let issuer = oidc.issuer else {
                throw ServerConfiguration.Invalid(description: "providers.oidc.\(name) needs issuer")
            }
            providers.append(
                OIDCProvider(
                    name: name,
                    settings: .init(
                        issuer: issuer,
                        clientIDs: Set(oidc.clientIDs),
                        clientSecret: oidc.clientSecret,
                        discoveryURL: oidc.discoveryURL
                    ),
                    fetcher: fetcher
                )
            )
        }
        if development { providers.append(DevelopmentProvider()) }
        self.providers = providers
    }

    private static func privateKey(
        pem: String?,
        file: String?,
        what: String
    ) throws(ServerConfiguration.Invalid)
        -> PrivateKey?
    {
        var text = pem
        if text == nil, let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ServerConfiguration.Invalid(description: "providers.\(what): cannot read \(file)")
            }
            text = String(decoding: data, as: UTF8.self)
        }
        guard let text else { return nil }
        do {
            return try PrivateKey(pem: text)
        } catch {
            throw ServerConfiguration.Invalid(
                description: "providers.\(what): the private key is not usable (\(error))"
            )
        }
    }
}
