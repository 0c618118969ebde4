import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogProviders

/// The parts of ``AccountComponents`` that are made from the configuration, one job each.
extension AccountComponents {
    /// The access-token issuer, naming the public URL (or `http://localhost:<port>`) as its issuer.
    static func accessTokenIssuer(
        configuration: ServerConfiguration,
        key: PrivateKey
    ) throws -> AccessTokenIssuer {
        let port = configuration.port ?? ConfigurationDefaults.port
        return try AccessTokenIssuer(
            key: key,
            issuer: configuration.publicURL ?? "http://localhost:\(port)",
            audience: configuration.accessToken?.audience ?? ConfigurationDefaults.accessTokenAudience
        )
    }

    /// The data key and the subject key (configured, or derived from the data key); `nil` when not set.

    /// - Throws: ``ServerConfiguration/Invalid`` for a key that is not 32 bytes in base64url.
    static func hashingKeys(of configuration: ServerConfiguration) throws -> (data: [UInt8]?, subject: [UInt8]?) {
        func key(_ text: String?, _ name: String) throws -> [UInt8]? {
            guard let text else { return nil }
            guard let bytes = Base64URL.decode(text), bytes.count == 32 else {
                throw ServerConfiguration.Invalid(description: "\(name) must be 32 bytes in base64url")
            }
            return bytes
        }
        let dataKey = try key(configuration.dataKey, "data_key")
        let subjectKey =
            try key(configuration.subjectKey, "subject_key") ?? dataKey.map(IdentityHasher.derivedKey(fromDataKey:))
        return (dataKey, subjectKey)
    }

    /// The application services over `dependencies`, wired to each other.
    static func services(
        dependencies: ServiceDependencies,
        providers: [any IdentityProvider]
    ) -> (
        signin: SigninService,
        tokens: TokenService,
        revoker: ProviderRevoker,
        accounts: AccountService,
        notifications: ProviderNotificationService
    ) {
        let signin = SigninService(dependencies: dependencies, providers: providers)
        let tokens = TokenService(dependencies: dependencies)
        let revoker = ProviderRevoker(dependencies: dependencies, providers: providers)
        let accounts = AccountService(dependencies: dependencies, signin: signin, tokens: tokens, revoker: revoker)
        let notifications = ProviderNotificationService(dependencies: dependencies, signin: signin, accounts: accounts)
        return (signin, tokens, revoker, accounts, notifications)
    }

    /// `request_body_limit`, 1 byte to 16 MiB.
    static func bodyLimit(of configuration: ServerConfiguration) throws -> Int {
        try ServiceSettings.checked(
            configuration.requestBodyLimit,
            "request_body_limit",
            default: ConfigurationDefaults.requestBodyLimit,
            in: 1...(16 << 20)
        )
    }

    /// The introspection callers, id → secret.

    /// - Throws: ``ServerConfiguration/Invalid`` for a client without a secret.
    static func introspectionClients(of configuration: ServerConfiguration) throws -> [String: String] {
        var clients: [String: String] = [:]
        for client in configuration.introspectionClients ?? [] {
            guard let secret = client.secret, !secret.isEmpty else {
                throw ServerConfiguration.Invalid(description: "introspection client \(client.id) has no secret")
            }
            clients[client.id] = secret
        }
        return clients
    }
}
