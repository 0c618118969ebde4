import AuthlogCrypto
import AuthlogProviders
import Foundation

/// One builder per provider kind, each turning its configuration section into the provider.
extension ProviderRegistry {
    static func apple(
        _ apple: ServerConfiguration.Apple,
        fetcher: any HTTPFetching
    ) throws(ServerConfiguration.Invalid) -> AppleProvider {
        var options = AppleProvider.Settings(clientIDs: Set(apple.clientIDs))
        options.issuer = apple.issuer ?? options.issuer
        options.tokenURL = apple.tokenURL ?? options.tokenURL
        options.revokeURL = apple.revokeURL ?? options.revokeURL
        options.teamID = apple.teamID
        options.keyID = apple.keyID
        options.privateKey = try Self.privateKey(pem: apple.privateKey, file: apple.privateKeyFile, what: "apple")
        return AppleProvider(
            settings: options,
            keys: JWKSCache(url: apple.jwksURL ?? ConfigurationDefaults.appleJWKSURL, fetcher: fetcher),
            fetcher: fetcher
        )
    }

    static func google(_ google: ServerConfiguration.Google, fetcher: any HTTPFetching) -> GoogleProvider {
        GoogleProvider(
            clientIDs: Set(google.clientIDs),
            hostedDomain: google.hostedDomain,
            keys: JWKSCache(url: google.jwksURL ?? ConfigurationDefaults.googleJWKSURL, fetcher: fetcher)
        )
    }

    static func kakao(_ kakao: ServerConfiguration.Kakao, fetcher: any HTTPFetching) -> KakaoProvider {
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
        return KakaoProvider(
            settings: options,
            keys: JWKSCache(url: kakao.jwksURL ?? ConfigurationDefaults.kakaoJWKSURL, fetcher: fetcher),
            fetcher: fetcher
        )
    }

    static func github(
        _ github: ServerConfiguration.GitHub,
        fetcher: any HTTPFetching
    ) throws(ServerConfiguration.Invalid) -> GitHubProvider {
        guard let secret = github.clientSecret else {
            throw ServerConfiguration.Invalid(
                description: "providers.github needs client_secret (or AUTHLOG_GITHUB_CLIENT_SECRET)"
            )
        }
        var options = GitHubProvider.Settings(clientID: github.clientID, clientSecret: secret)
        options.tokenURL = github.tokenURL ?? options.tokenURL
        options.apiURL = github.apiURL ?? options.apiURL
        return GitHubProvider(settings: options, fetcher: fetcher)
    }

    /// A configured generic OIDC provider, whose name must be `[a-z0-9_]` and not a built-in provider's.
    static func genericOIDC(
        name: String,
        _ oidc: ServerConfiguration.OIDC,
        fetcher: any HTTPFetching
    ) throws(ServerConfiguration.Invalid) -> OIDCProvider {
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
        return Self.oidc(name: name, issuer: issuer, oidc, fetcher: fetcher)
    }

    static func oidc(
        name: String,
        issuer: String,
        _ oidc: ServerConfiguration.OIDC,
        fetcher: any HTTPFetching
    ) -> OIDCProvider {
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
