import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import Foundation

/// The parts of ``AccountComponents`` that are made from the configuration, one job each.
extension AccountComponents {
    /// The access-token issuer, naming the public URL (or `http://localhost:<port>`) as its issuer.
    static func accessTokenIssuer(
        configuration: ServerConfiguration,
        key: PrivateKey
    ) throws -> AccessTokenIssuer {
        let port = configuration.port ?? ConfigurationDefaults.port
        let previous = try (configuration.accessToken?.previousKeyFiles ?? []).map(Self.previousAccessTokenKey(file:))
        return try AccessTokenIssuer(
            key: key,
            previousKeys: previous,
            issuer: configuration.publicURL ?? "http://localhost:\(port)",
            audience: configuration.accessToken?.audience ?? ConfigurationDefaults.accessTokenAudience
        )
    }

    /// A key of `access_token.previous_key_files`: the public half of a PEM private key, or a PEM public key.
    /// - Throws: ``ServerConfiguration/Invalid`` naming the file when it cannot be read or holds no ES256 key.
    static func previousAccessTokenKey(file: String) throws -> PublicKey {
        guard let data = FileManager.default.contents(atPath: file), data.count <= 64 * 1024 else {
            throw ServerConfiguration.Invalid(description: "access_token.previous_key_files: cannot read \(file)")
        }
        let pem = String(decoding: data, as: UTF8.self)
        guard let key = (try? PrivateKey(pem: pem).publicKey()) ?? (try? PublicKey(pem: pem)), key.algorithm == .es256
        else {
            throw ServerConfiguration.Invalid(
                description: "access_token.previous_key_files: \(file) holds no ES256 (P-256) key in PEM"
            )
        }
        return key
    }

    /// The data key, the data keys it replaced, and the subject key (configured, or derived from the data key);
    /// `nil` when not set.
    /// - Throws: ``ServerConfiguration/Invalid`` for a key that is not 32 bytes in base64url, previous data
    ///   keys without a data key, or previous data keys without `subject_key` (a subject key derived from the
    ///   new data key would make every identity a new user).
    public static func dataKeys(
        of configuration: ServerConfiguration
    ) throws -> (data: [UInt8]?, previous: [[UInt8]], subject: [UInt8]?) {
        func key(_ text: String?, _ name: String) throws -> [UInt8]? {
            guard let text else { return nil }
            guard let bytes = Base64URL.decode(text), bytes.count == 32 else {
                throw ServerConfiguration.Invalid(description: "\(name) must be 32 bytes in base64url")
            }
            return bytes
        }
        let dataKey = try key(configuration.dataKey, "data_key")
        let texts = configuration.previousDataKeys ?? []
        guard texts.count <= 16 else {
            throw ServerConfiguration.Invalid(description: "previous_data_keys: at most 16 keys")
        }
        let previous = try texts.enumerated().compactMap { try key($1, "previous_data_keys[\($0)]") }
        if !previous.isEmpty {
            guard dataKey != nil else {
                throw ServerConfiguration.Invalid(description: "previous_data_keys is set but data_key is not")
            }
            guard configuration.subjectKey != nil else {
                throw ServerConfiguration.Invalid(
                    description: "previous_data_keys needs subject_key: without it identities are hashed with a key "
                        + "derived from data_key, and a new data_key would make every identity a new user; set "
                        + "subject_key to what `authlog keys subject-key` prints with the old data_key first"
                )
            }
        }
        let subjectKey =
            try key(configuration.subjectKey, "subject_key") ?? dataKey.map(IdentityHasher.derivedKey(fromDataKey:))
        return (dataKey, previous, subjectKey)
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

    /// `rate_limits.lockout` (docs/configuration.md): 1 to 100 failures (NIST SP 800-63B's cap on consecutive
    /// failures, and what the projection keeps), a window of a second to a day, and locks of a second to a
    /// day, the longest no shorter than the first. `rate_limits.enabled: false` turns the lockout off.
    /// - Throws: ``ServerConfiguration/Invalid`` for a value outside its range.
    static func lockoutPolicy(of configuration: ServerConfiguration) throws -> LockoutPolicy {
        let section = configuration.rateLimits?.lockout
        let day = 86_400
        let first = try ServiceSettings.checked(
            section?.firstLockSeconds,
            "rate_limits.lockout.first_lock_seconds",
            default: LockoutPolicy.defaultFirstLockSeconds,
            in: 1...day
        )
        let maximum = try ServiceSettings.checked(
            section?.maximumLockSeconds,
            "rate_limits.lockout.maximum_lock_seconds",
            default: max(LockoutPolicy.defaultMaximumLockSeconds, first),
            in: 1...day
        )
        guard maximum >= first else {
            throw ServerConfiguration.Invalid(
                description: "rate_limits.lockout.maximum_lock_seconds must be at least first_lock_seconds"
            )
        }
        return LockoutPolicy(
            isEnabled: configuration.rateLimits?.enabled ?? true,
            failures: try ServiceSettings.checked(
                section?.failures,
                "rate_limits.lockout.failures",
                default: LockoutPolicy.defaultFailures,
                in: 1...IdentityLockout.keptFailures
            ),
            windowSeconds: try ServiceSettings.checked(
                section?.windowSeconds,
                "rate_limits.lockout.window_seconds",
                default: LockoutPolicy.defaultWindowSeconds,
                in: 1...day
            ),
            firstLockSeconds: first,
            maximumLockSeconds: maximum
        )
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
