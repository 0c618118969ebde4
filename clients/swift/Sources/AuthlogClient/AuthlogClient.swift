public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// An app's connection to authlog: sign-in, the session's tokens, authorized requests and the account.
///
/// One client per authlog server and token store; share it across the app. Every authorized request gets the
/// current access token; an access token about to expire, or refused with 401, is refreshed once for all
/// concurrent callers, and a session authlog ended is cleared and reported on ``sessionEvents()``.
public final class AuthlogClient: Sendable {
    /// How the client refreshes.
    public struct Configuration: Sendable {
        /// An access token expiring within this many seconds is refreshed before use.
        public var refreshLeeway: TimeInterval
        /// How often a refresh whose answer was lost (no answer, connection cut) is tried again, with the same
        /// refresh token.
        public var refreshRetries: Int
        /// The wait before the first retry; each further retry waits this much longer.
        public var retryDelay: Duration
        /// The `User-Agent` header, shown to the user in their session list; `nil` leaves URLSession's.
        public var userAgent: String?
        /// While the client holds a session, it refreshes this many seconds before the access token expires,
        /// without waiting for a request; `nil` refreshes only when a request needs it.
        public var refreshBeforeExpiry: TimeInterval?
        /// The least time between two refreshes asked for by the access token's expiry (before expiry, or at a
        /// request within ``refreshLeeway``), so that an odd server clock or expiry cannot make a refresh loop.
        /// A request refused with 401 still refreshes.
        public var minimumRefreshInterval: TimeInterval

        /// Creates a configuration; the defaults suit an app.
        public init(
            refreshLeeway: TimeInterval = 30,
            refreshRetries: Int = 3,
            retryDelay: Duration = .milliseconds(250),
            userAgent: String? = nil,
            refreshBeforeExpiry: TimeInterval? = 60,
            minimumRefreshInterval: TimeInterval = 10
        ) {
            self.refreshLeeway = refreshLeeway
            self.refreshRetries = refreshRetries
            self.retryDelay = retryDelay
            self.userAgent = userAgent
            self.refreshBeforeExpiry = refreshBeforeExpiry
            self.minimumRefreshInterval = minimumRefreshInterval
        }
    }

    /// authlog's base URL, such as `https://auth.example.com`.
    public var baseURL: URL { self.connection.baseURL }
    let connection: APIConnection
    let keeper: TokenKeeper
    let events: SessionEventBroadcaster
    let configuration: Configuration

    /// A client of the authlog server at `baseURL`.
    /// - Parameters:
    ///   - baseURL: authlog's base URL.
    ///   - tokenStore: where the session's tokens are kept between launches.
    ///   - session: the URLSession requests go through.
    ///   - configuration: refresh timing and the user agent.
    public convenience init(
        baseURL: URL,
        tokenStore: any TokenStore = InMemoryTokenStore(),
        session: URLSession = .shared,
        configuration: Configuration = Configuration()
    ) {
        self.init(
            baseURL: baseURL,
            tokenStore: tokenStore,
            transport: URLSessionTransport(session: session),
            configuration: configuration
        )
    }

    /// A client whose requests go through `transport` (tests count them; SPI `Testing`).
    @_spi(Testing) public init(
        baseURL: URL,
        tokenStore: any TokenStore,
        transport: any HTTPTransport,
        configuration: Configuration = Configuration()
    ) {
        let connection = APIConnection(baseURL: baseURL, transport: transport, userAgent: configuration.userAgent)
        let events = SessionEventBroadcaster()
        self.connection = connection
        self.events = events
        self.configuration = configuration
        let keeper = TokenKeeper(
            store: tokenStore,
            connection: connection,
            events: events,
            configuration: configuration
        )
        self.keeper = keeper
        // Reading the store starts the refresh before expiry of a session kept from an earlier launch.
        if configuration.refreshBeforeExpiry != nil { Task { _ = try? await keeper.current() } }
    }

    /// The session's events: first ``SessionEvent/initialSession(_:)`` with the state now (signed in with
    /// which session, or signed out; the token store is read for it if it was not yet), then sign-ins,
    /// refreshes, and sign-outs with their reason. Each call opens a new stream.
    public func sessionEvents() -> AsyncStream<SessionEvent> {
        let (stream, needsState) = self.events.stream()
        if needsState {
            let keeper = self.keeper
            Task { _ = try? await keeper.current() }
        }
        return stream
    }

    /// The session's tokens, or `nil` when signed out (read from the token store the first time).
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when the store cannot be read.
    public func currentTokens() async throws -> AuthTokens? {
        try await self.keeper.current()
    }

    /// Refreshes the tokens now (at launch, say), sharing a refresh already in flight.
    /// - Throws: ``AuthlogClientError``: `.signedOut` when there is no session or authlog ended it.
    @discardableResult
    public func refresh() async throws -> AuthTokens {
        try await self.keeper.refresh(replacing: nil)
    }

    /// Sends `request` with the session's access token as `Authorization: Bearer` and returns the answer,
    /// whatever its status.
    ///
    /// An access token within ``Configuration/refreshLeeway`` of its expiry is refreshed first; a 401
    /// `invalid_token` (or a 401 without authlog's error body, from another resource server) refreshes once and
    /// sends the request again, once. Concurrent callers share one refresh.
    /// - Throws: ``AuthlogClientError``: `.signedOut` when there is no session or authlog ended it (the tokens
    ///   are then cleared and ``SessionEvent/signedOut(_:)`` is sent), `.transport` when no answer came.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let leeway = self.configuration.refreshLeeway
        let tokens: AuthTokens
        if let usable = self.keeper.snapshot.usable(leeway: leeway) {
            tokens = usable
        } else {
            tokens = try await self.keeper.validTokens(leeway: leeway)
        }
        var authorized = request
        authorized.setValue("Bearer \(tokens.accessToken)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await self.connection.perform(authorized)
        guard Self.needsRefresh(data, response) else { return (data, response) }
        let fresh = try await self.keeper.refresh(replacing: tokens.accessToken)
        authorized.setValue("Bearer \(fresh.accessToken)", forHTTPHeaderField: "Authorization")
        return try await self.connection.perform(authorized)
    }

    /// Whether an answer says the access token was refused: 401 with `invalid_token`, or with no authlog error.
    static func needsRefresh(_ data: Data, _ response: HTTPURLResponse) -> Bool {
        guard response.statusCode == 401 else { return false }
        let code = APIConnection.errorCode(data)
        return code == nil || code == "invalid_token"
    }

    /// An authorized call to one of authlog's own routes; an error answer is thrown.
    func authorized(
        _ method: String,
        _ path: String,
        query: [URLQueryItem] = [],
        body: [String: BodyValue]? = nil
    ) async throws -> Data {
        let (data, response) = try await self.send(try self.connection.request(method, path, query: query, body: body))
        try APIConnection.check(data, response)
        return data
    }
}
