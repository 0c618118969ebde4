/// The configuration of `authlog serve`, read from one JSON file (see `deploy/authlog.example.json` and
/// docs/configuration.md). Every member is optional, and any can come from the environment instead
/// (``ServerConfiguration/load(path:environment:)``).
public struct ServerConfiguration: Codable, Sendable {
    /// Where to listen.
    public var host: String?
    /// The port to listen on.
    public var port: Int?
    /// authlog's own URL: the `iss` of its access tokens.
    public var publicURL: String?
    /// Turns on the `dev` provider (sign-in without a proof). Never in production.
    public var development: Bool?
    /// The largest request body, in bytes (default 65,536).
    public var requestBodyLimit: Int?
    /// Proxies whose `X-Forwarded-For` is believed, as addresses or CIDR blocks.
    public var trustedProxies: [String]?
    /// Read and idle timeouts and the cap on open connections (``ConnectionLimits`` holds the defaults).
    public var connections: ConnectionSettings?
    /// Access tokens (ES256 JWTs).
    public var accessToken: AccessTokenSettings?
    /// Refresh tokens.
    public var refreshToken: RefreshTokenSettings?
    /// Lifetime of nonces issued by `POST /v1/nonces`, in seconds (default 600).
    public var nonceTTLSeconds: Int?
    /// How long a provider call may take, in seconds (default 5).
    public var providerTimeoutSeconds: Int?
    /// 32 bytes, base64url: seals provider credentials at rest. Prefer `AUTHLOG_DATA_KEY`.
    public var dataKey: String?
    /// Data keys `data_key` replaced (each 32 bytes, base64url; prefer `AUTHLOG_PREVIOUS_DATA_KEYS`): what they
    /// sealed still opens until `authlog keys rewrap` has sealed it again under `data_key`. Needs `subject_key`.
    public var previousDataKeys: [String]?
    /// 32 bytes, base64url: keys the HMAC of provider subjects and emails. Prefer `AUTHLOG_SUBJECT_KEY`;
    /// without it the key is derived from the data key.
    public var subjectKey: String?
    /// Re-authentication, linking and deletion rules.
    public var account: AccountSettings?
    /// Callers allowed to use `/oauth/introspect` and `/oauth/revoke`.
    public var introspectionClients: [ClientCredentials]?
    /// The identity providers.
    public var providers: ProviderSettings?
    /// The log's signed checkpoints.
    public var log: LogSettings?
    /// The primary database (URL or conninfo), when neither `--database-url` nor `AUTHLOG_DATABASE_URL` is set.
    public var databaseURL: String?
    /// A read replica for the audited reads (reports, exports, proofs, session listings), when neither
    /// `--read-database-url` nor `AUTHLOG_READ_DATABASE_URL` is set.
    public var readDatabaseURL: String?
    /// The replica lag, in seconds, past which `/readyz` reports the replica as `lagging` (default 30).
    public var readDatabaseMaxLagSeconds: Int?
    /// The abuse limits: rates per address, family and API key, and the identity lockout.
    public var rateLimits: RateLimitSettings?
    /// Where sealed events are pushed as they are sealed (``SinkSettings`` holds the defaults).
    public var sinks: [SinkEntry]?
    /// The operator's MaxMind DB files that place sign-ins (unset: places are off).
    public var places: PlacesSettings?
    /// Sign-in alerts: new device, new country or region, impossible travel, hosting network.
    public var alerts: AlertSettings?
    /// DPoP (RFC 9449): each client's policy, server nonces, the accepted age of a proof.
    public var dpop: DPoPSection?

    /// An empty configuration: every default.
    public init() {}

    /// Signed checkpoints of the log (``CheckpointSettings`` holds the defaults).
    public struct LogSettings: Codable, Sendable {
        /// The log's origin, the first line of every checkpoint and the name of its key (default: the host of
        /// `public_url` followed by `/log`).
        public var origin: String?
        /// The Ed25519 checkpoint key (PKCS#8 PEM file) made by `authlog keys generate`; prefer
        /// `AUTHLOG_CHECKPOINT_KEY` for the PEM itself. Without one, `serve` signs no checkpoints.
        public var checkpointKeyFile: String?
        /// The verifier keys (`<origin>+<key hash>+<base64 key>`, as in `checkpoint.vkey`) of checkpoint keys
        /// this log was signed with before a rotation: notes they signed still verify, and the signer extends
        /// its state signed by them. Never signed with.
        public var previousCheckpointVerifierKeys: [String]?
        /// The directory outside the database where every signed checkpoint note is written.
        public var checkpointDirectory: String?
        /// Sign a checkpoint once this many events are sealed since the last one (default 1,000).
        public var checkpointEveryEvents: Int?
        /// Sign a checkpoint at least this often while events arrive, in seconds (default 60).
        public var checkpointEverySeconds: Int?
        /// 32 bytes, base64url: every event carries HMAC-SHA-256 of its digest under this key, and the sealer
        /// refuses queued rows without a valid one. Keep it outside the database; prefer `AUTHLOG_EVENT_KEY`.
        public var eventKey: String?
        /// The directory where `serve` writes the tree as C2SP tlog-tiles static files (`checkpoint`, `tile/…`,
        /// `tile/entries/…`) as they complete, for a plain web server to publish. Unset: none is written.
        public var tileDirectory: String?
        /// Moved to `rate_limits.per_address.log_read`; refused when set.
        public var readsPerSecond: Int?
        /// Moved to `rate_limits.per_address.log_read`; refused when set.
        public var readBurst: Int?
        /// The witnesses (C2SP tlog-witness) the latest checkpoint is submitted to for cosignatures.
        public var witnesses: [WitnessEntry]?
        /// How many witnesses must cosign a checkpoint for it to count as witnessed (default: all of them).
        public var witnessQuorum: Int?
        /// A C2SP tlog-policy file naming the witnesses (each with its URL) and the quorum, instead of
        /// `witnesses` and `witness_quorum`.
        public var witnessPolicy: String?
        /// The least time between two submissions to one witness, in seconds (default 10).
        public var witnessIntervalSeconds: Int?

        /// Settings with every default.
        public init() {}
    }

    /// One witness of the log.
    public struct WitnessEntry: Codable, Sendable {
        /// The witness's name (its cosignatures' key name).
        public var name: String
        /// Its submission prefix: `add-checkpoint` is POSTed to `<url>/add-checkpoint`.
        public var url: String
        /// Its cosignature verifier key (`<name>+<key ID>+<base64(0x04 ‖ key)>`).
        public var verifierKey: String
    }

    /// One push-delivery sink.
    public struct SinkEntry: Codable, Sendable {
        /// Its name: 1 to 64 of a-z 0-9 _ -, starting with a letter or digit; its cursor's key.
        public var name: String
        /// `http` (POSTs batches).
        public var type: String
        /// The URL batches are POSTed to (http or https).
        public var url: String
        /// The HMAC-SHA-256 key of the `Signature` header, at least 32 characters; prefer
        /// `AUTHLOG_SINKS__<index>__SECRET`.
        public var secret: String?
        /// `export` (JSON lines of the export format, default) or `ocsf` (JSON lines of OCSF 1.8.0 events).
        public var format: String?
        /// Events per batch (1 to 1,000; default 100).
        public var batchSize: Int?
        /// How long one POST may take, in seconds (1 to 60; default 10).
        public var timeoutSeconds: Int?
        /// The longest wait between retries, in seconds (1 to 3,600; default 300).
        public var maximumRetrySeconds: Int?
    }

    /// Access-token settings.
    public struct AccessTokenSettings: Codable, Sendable {
        /// Lifetime in seconds (default 900).
        public var ttlSeconds: Int?
        /// The ES256 signing key (PKCS#8 PEM file). Prefer `AUTHLOG_ACCESS_TOKEN_KEY` for the PEM itself.
        public var signingKeyFile: String?
        /// Keys signed with before a rotation (PEM files, private or public): still in the JWKS and still
        /// accepted until their tokens have expired, never signed with.
        public var previousKeyFiles: [String]?
        /// The `aud` of access tokens (default `authlog`).
        public var audience: String?
    }

    /// How long the server waits for a client, and how many clients it holds at once.
    public struct ConnectionSettings: Codable, Sendable {
        /// Seconds from a connection's start to its first request's complete headers.
        public var headerTimeoutSeconds: Int?
        /// Seconds from a request's headers to the end of its body.
        public var bodyTimeoutSeconds: Int?
        /// Seconds a kept-alive connection may wait for its next request.
        public var idleTimeoutSeconds: Int?
        /// The most connections open at once; more wait in the listen backlog.
        public var maximumConnections: Int?
        /// The most connections open at once from one client address (trusted proxies are exempt).
        public var maximumConnectionsPerAddress: Int?
    }

    /// Refresh-token settings.
    public struct RefreshTokenSettings: Codable, Sendable {
        /// Absolute lifetime of a "remember me" token family, in seconds (default 30 days).
        public var rememberMeTTLSeconds: Int?
        /// Absolute lifetime when the app asked for no "remember me", in seconds (default 12 hours).
        public var sessionTTLSeconds: Int?
        /// Idle lifetime of a "remember me" session, in seconds (default 14 days).
        public var rememberMeIdleSeconds: Int?
        /// Idle lifetime of a plain session, in seconds (default 2 hours).
        public var sessionIdleSeconds: Int?
        /// How long a spent refresh token, presented again, gets its rotation's answer again, in seconds
        /// (default 10, 0 to 60; 0: never).
        public var reuseGraceSeconds: Int?
    }

    /// Re-authentication, linking, deletion and provider notices.
    public struct AccountSettings: Codable, Sendable {
        /// How recent a session's authentication must be for linking, unlinking and deletion (default 300).
        public var reauthenticationWindowSeconds: Int?
        /// Link a first sign-in to the user with the same verified email when the provider is authoritative
        /// for it (default false: such a sign-in is refused with `account_exists`).
        public var linkByVerifiedEmail: Bool?
        /// The oldest Apple server-to-server notification accepted, by `iat` (default 3600).
        public var notificationMaximumAgeSeconds: Int?
        /// The first retry of a failed provider revocation waits this long; each next one twice as long
        /// (default 60).
        public var revocationRetrySeconds: Int?
    }

    /// A caller of the OAuth endpoints.
    public struct ClientCredentials: Codable, Sendable {
        /// The client id used with HTTP Basic.
        public var id: String
        /// Its secret; `AUTHLOG_CLIENT_SECRET_<ID>` overrides.
        public var secret: String?
    }

    /// The providers; each is on when its member is present.
    public struct ProviderSettings: Codable, Sendable {
        /// Sign in with Apple.
        public var apple: Apple?
        /// Google ID tokens.
        public var google: Google?
        /// GitLab (gitlab.com or self-managed).
        public var gitlab: OIDC?
        /// Kakao Login.
        public var kakao: Kakao?
        /// A GitHub OAuth app.
        public var github: GitHub?
        /// Firebase Authentication.
        public var firebase: Firebase?
        /// Generic OpenID Connect providers by name (`[a-z0-9_]`, not a built-in name).
        public var oidc: [String: OIDC]?
    }

    /// Sign in with Apple.
    public struct Apple: Codable, Sendable {
        /// The client ids tokens may be issued to (bundle ids, Services ids, OAuth client ids).
        public var clientIDs: [String]
        /// The Apple Developer Team ID (the client secret's `iss`).
        public var teamID: String?
        /// The Key ID of the Sign in with Apple key (the client secret's `kid`).
        public var keyID: String?
        /// The Sign in with Apple key (PKCS#8 PEM file); `AUTHLOG_APPLE_PRIVATE_KEY` overrides with the PEM.
        public var privateKeyFile: String?
        /// The Sign in with Apple key itself (PEM); `AUTHLOG_APPLE_PRIVATE_KEY` overrides.
        public var privateKey: String?
        /// The issuer tokens must name exactly.
        public var issuer: String?
        /// Where the provider publishes its keys.
        public var jwksURL: String?
        /// The token (code-exchange) endpoint.
        public var tokenURL: String?
        /// The token-revocation endpoint.
        public var revokeURL: String?

        enum CodingKeys: String, CodingKey {
            case clientIDs = "client_ids"
            case teamID, keyID, privateKeyFile, privateKey, issuer, jwksURL, tokenURL, revokeURL
        }
    }

    /// Google ID tokens.
    public struct Google: Codable, Sendable {
        /// The client ids tokens may be issued to (bundle ids, Services ids, OAuth client ids).
        public var clientIDs: [String]
        /// Only Google Workspace accounts of this domain may sign in.
        public var hostedDomain: String?
        /// Where the provider publishes its keys.
        public var jwksURL: String?

        enum CodingKeys: String, CodingKey {
            case clientIDs = "client_ids"
            case hostedDomain, jwksURL
        }
    }

    /// GitLab or another OpenID Connect provider.
    public struct OIDC: Codable, Sendable {
        /// The issuer (GitLab: `https://gitlab.com` or the instance's external URL).
        public var issuer: String?
        /// The discovery document; by default `<issuer>/.well-known/openid-configuration`.
        public var discoveryURL: String?
        /// The client ids tokens may be issued to (bundle ids, Services ids, OAuth client ids).
        public var clientIDs: [String]
        /// `AUTHLOG_<NAME>_CLIENT_SECRET` overrides.
        public var clientSecret: String?

        enum CodingKeys: String, CodingKey {
            case clientIDs = "client_ids"
            case issuer, discoveryURL, clientSecret
        }
    }

    /// Kakao Login.
    public struct Kakao: Codable, Sendable {
        /// The numeric app id `access_token_info` must report.
        public var appID: String
        /// The app keys (REST API, native, JavaScript) identity tokens may be issued to.
        public var appKeys: [String]
        /// `AUTHLOG_KAKAO_CLIENT_SECRET` overrides.
        public var clientSecret: String?
        /// The issuer tokens must name exactly.
        public var issuer: String?
        /// Where the provider publishes its keys.
        public var jwksURL: String?
        /// The token (code-exchange) endpoint.
        public var tokenURL: String?
        /// The access-token information endpoint (`access_token_info`).
        public var tokenInfoURL: String?
        /// The user endpoint (`/v2/user/me`).
        public var userURL: String?
        /// The admin key: unlinks users at deletion, authenticates the unlink callback.
        /// `AUTHLOG_KAKAO_ADMIN_KEY` overrides.
        public var adminKey: String?
        /// The unlink endpoint (`/v1/user/unlink`).
        public var unlinkURL: String?
    }

    /// A GitHub OAuth app.
    public struct GitHub: Codable, Sendable {
        /// The OAuth app's client id.
        public var clientID: String
        /// `AUTHLOG_GITHUB_CLIENT_SECRET` overrides.
        public var clientSecret: String?
        /// The token (code-exchange) endpoint.
        public var tokenURL: String?
        /// The REST API base URL.
        public var apiURL: String?
    }

    /// Firebase Authentication.
    public struct Firebase: Codable, Sendable {
        /// The Firebase project id (`aud`, and part of `iss`).
        public var projectID: String
        /// Where the provider publishes its keys.
        public var jwksURL: String?
    }
}
