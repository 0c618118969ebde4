public import AuthlogProviders

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
        if let apple = settings?.apple { providers.append(try Self.apple(apple, fetcher: fetcher)) }
        if let google = settings?.google { providers.append(Self.google(google, fetcher: fetcher)) }
        if let gitlab = settings?.gitlab {
            let issuer = gitlab.issuer ?? ConfigurationDefaults.gitlabIssuer
            providers.append(Self.oidc(name: "gitlab", issuer: issuer, gitlab, fetcher: fetcher))
        }
        if let kakao = settings?.kakao { providers.append(Self.kakao(kakao, fetcher: fetcher)) }
        if let github = settings?.github { providers.append(try Self.github(github, fetcher: fetcher)) }
        if let firebase = settings?.firebase {
            let url = firebase.jwksURL ?? ConfigurationDefaults.firebaseJWKSURL
            providers.append(
                FirebaseProvider(projectID: firebase.projectID, keys: JWKSCache(url: url, fetcher: fetcher))
            )
        }
        for (name, oidc) in (settings?.oidc ?? [:]).sorted(by: { $0.key < $1.key }) {
            providers.append(try Self.genericOIDC(name: name, oidc, fetcher: fetcher))
        }
        if development { providers.append(DevelopmentProvider()) }
        self.providers = providers
    }
}
