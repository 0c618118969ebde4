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
    /// How the client refreshes, and whether it proves the install's DPoP key.
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
        /// Whether the client binds its sessions to the install's DPoP key (RFC 9449): each sign-in, refresh and
        /// request with DPoP-bound tokens then carries a proof of the key, which the token store keeps
        /// (``TokenStore/loadOrCreateDPoPKey(replacing:make:)``), so that stolen tokens are of no use without it.
        /// `false` sends no proof and uses Bearer tokens, as clients did before DPoP.
        public var usesDPoP: Bool

        /// Creates a configuration; the defaults suit an app.
        public init(
            refreshLeeway: TimeInterval = 30,
            refreshRetries: Int = 3,
            retryDelay: Duration = .milliseconds(250),
            userAgent: String? = nil,
            refreshBeforeExpiry: TimeInterval? = 60,
            minimumRefreshInterval: TimeInterval = 10,
            usesDPoP: Bool = true
        ) {
            self.refreshLeeway = refreshLeeway
            self.refreshRetries = refreshRetries
            self.retryDelay = retryDelay
            self.userAgent = userAgent
            self.refreshBeforeExpiry = refreshBeforeExpiry
            self.minimumRefreshInterval = minimumRefreshInterval
            self.usesDPoP = usesDPoP
        }
    }

    /// authlog's base URL, such as `https://auth.example.com`.
    public var baseURL: URL { self.connection.baseURL }
    /// The monitor of authlog's log, when the client was given pins; `nil` otherwise.
    public let monitor: LogMonitor?
    let connection: APIConnection
    let keeper: TokenKeeper
    let sender: AuthorizedSender
    let events: SessionEventBroadcaster
    let configuration: Configuration

    /// A client of the authlog server at `baseURL`.
    /// - Parameters:
    ///   - baseURL: authlog's base URL.
    ///   - tokenStore: where the session's tokens and the install's device id and DPoP key are kept between launches.
    ///   - session: the URLSession requests go through.
    ///   - configuration: refresh timing, the user agent, and DPoP.
    ///   - monitor: the log's pins and the monitor's store and bounds; `nil` (the default) leaves the monitor off.
    public convenience init(
        baseURL: URL,
        tokenStore: any TokenStore = InMemoryTokenStore(),
        session: URLSession = .shared,
        configuration: Configuration = Configuration(),
        monitor: LogMonitor.Configuration? = nil
    ) {
        self.init(
            baseURL: baseURL,
            tokenStore: tokenStore,
            transport: URLSessionTransport(session: session),
            configuration: configuration,
            monitor: monitor
        )
    }

    /// A client whose requests go through `transport` (tests count them; SPI `Testing`).
    @_spi(Testing) public init(
        baseURL: URL,
        tokenStore: any TokenStore,
        transport: any HTTPTransport,
        configuration: Configuration = Configuration(),
        monitor: LogMonitor.Configuration? = nil
    ) {
        let connection = APIConnection(
            baseURL: baseURL,
            transport: transport,
            userAgent: configuration.userAgent,
            deviceIDs: DeviceIDCache(store: tokenStore),
            dpop: configuration.usesDPoP ? DPoPProver(store: tokenStore) : nil
        )
        let events = SessionEventBroadcaster()
        let link = MonitorLink()
        self.connection = connection
        self.events = events
        self.configuration = configuration
        let keeper = TokenKeeper(
            store: tokenStore,
            connection: connection,
            events: events,
            configuration: configuration,
            monitor: link
        )
        self.keeper = keeper
        let sender = AuthorizedSender(keeper: keeper, connection: connection, leeway: configuration.refreshLeeway)
        self.sender = sender
        self.monitor = monitor.map { LogMonitor(configuration: $0, sender: sender) }
        if let monitor = self.monitor {
            link.attach(monitor)
            // Reading the monitor's record starts the checks of the events an earlier launch left waiting.
            Task { await monitor.loadIfNeeded() }
        }
        // Reading the store starts the refresh before expiry of a session kept from an earlier launch.
        if configuration.refreshBeforeExpiry != nil { Task { _ = try? await keeper.current() } }
    }

    /// The session's events: first ``SessionEvent/initialSession(_:)`` with the state now (signed in with
    /// which session, or signed out; the token store is read for it if it was not yet), then sign-ins,
    /// refreshes, the alerts of unusual ones, and sign-outs with their reason. Each call opens a new stream.
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

    /// Refreshes the tokens now (at launch, say), sharing a refresh already in flight. Every refresh sends the
    /// install's device id (`Authlog-Device-Id`, ``TokenStore/loadOrCreateDeviceID()``); an answer whose
    /// `signin_alert` says authlog found it unusual is reported as ``SessionEvent/unusualSignin(_:)`` after
    /// ``SessionEvent/refreshed(sessionID:)``.
    /// - Throws: ``AuthlogClientError``: `.signedOut` when there is no session or authlog ended it.
    @discardableResult
    public func refresh() async throws -> AuthTokens {
        try await self.keeper.refresh(replacing: nil)
    }

    /// Sends `request` with the session's access token as `Authorization: Bearer` and returns the answer,
    /// whatever its status. Tokens bound to the install's DPoP key (``AuthTokens/tokenType`` `DPoP`) go as
    /// `Authorization: DPoP` instead, with a `DPoP` proof of the key for this request carrying the token's hash
    /// (`ath`) and the server's latest `DPoP-Nonce`; an answer asking for a nonce (`WWW-Authenticate: DPoP
    /// error="use_dpop_nonce"` with a `DPoP-Nonce`) sends the request again once with a new proof carrying it.
    ///
    /// An access token within ``Configuration/refreshLeeway`` of its expiry is refreshed first; a 401
    /// `invalid_token` (or a 401 without authlog's error body, from another resource server) refreshes once and
    /// sends the request again, once; a refused DPoP proof does not. Concurrent callers share one refresh. With the
    /// monitor on, the events an answer from authlog itself names (`Authlog-Event-Ids`) are checked in the
    /// background.
    /// - Throws: ``AuthlogClientError``: `.signedOut` when there is no session or authlog ended it (the tokens
    ///   are then cleared and ``SessionEvent/signedOut(_:)`` is sent), `.transport` when no answer came,
    ///   `.tokenStore` or `.dpopKeyUnavailable` when DPoP-bound tokens cannot be proved.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let started = Date()
        let (data, response, tokens) = try await self.sender.send(request)
        if self.monitor != nil, self.connection.isOwn(request.url) {
            await self.noteEvents(in: response, for: tokens.identity, at: started)
        }
        return (data, response)
    }

    /// An authorized call to one of authlog's own routes; an error answer is thrown. The events the answer
    /// names go to the monitor, as events of the session the call was made with (or of the `sessions` given).
    func authorized(
        _ method: String,
        _ path: String,
        query: [URLQueryItem] = [],
        body: [String: BodyValue]? = nil,
        sessions: EventExpectation.Sessions? = nil
    ) async throws -> Data {
        let started = Date()
        let request = try self.connection.request(method, path, query: query, body: body)
        let (data, response, tokens) = try await self.sender.send(request)
        await self.noteEvents(in: response, for: tokens.identity, at: started, sessions: sessions)
        try APIConnection.check(data, response)
        return data
    }

    /// Hands the events `response` names (and `body`'s) to the monitor, if it is on: events of `identity`'s
    /// answer to a request sent at `requestedAt`.
    func noteEvents(
        in response: HTTPURLResponse,
        body: [String] = [],
        for identity: SessionIdentity,
        at requestedAt: Date,
        sessions: EventExpectation.Sessions? = nil
    ) async {
        guard let monitor = self.monitor else { return }
        let ids = EventIDs.named(by: response, body: body)
        guard !ids.isEmpty else { return }
        await monitor.note(ids, expectation: .answer(to: identity, at: requestedAt, sessions: sessions))
    }
}
