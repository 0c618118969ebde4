@_spi(Testing) import AuthlogClient
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// authlog's refresh-token rotation in memory, as an ``HTTPTransport`` for the client's logic tests (the
/// server-backed tests are in the root package): each refresh spends its token and issues the next pair; a
/// spent token presented again is reuse (no grace window here) and ends the session; `POST /v1/logout` ends
/// it; `GET /v1/me` answers 200 to a live access token and 401 `invalid_token` otherwise.
///
/// `@unchecked Sendable`: every stored property is read and written only while `lock` is held.
final class RotatingTokenServer: HTTPTransport, @unchecked Sendable {
    static let baseURL = URL(string: "http://authlog.test") ?? URL(fileURLWithPath: "/")
    private let lock = NSLock()
    /// The access tokens' lifetime in seconds; negative for a server whose clock is far ahead of the device's.
    private let lifetime: TimeInterval
    private var serial = 0
    private var liveRefreshToken: String?
    private var liveAccessTokens: Set<String> = []
    private var spent: Set<String> = []
    private var counts: [String: Int] = [:]
    /// Paths whose requests wait before the server decides.
    private var heldRequests: Set<String> = []
    /// Paths whose answers, already decided, wait before they are delivered.
    private var heldAnswers: Set<String> = []
    private(set) var reuseDetected = 0

    init(lifetime: TimeInterval) {
        self.lifetime = lifetime
    }

    /// A new session's first pair, as a sign-in would give it.
    func signIn(accessTokenLifetime: TimeInterval? = nil) -> AuthTokens {
        self.lock.withLock { self.issue(lifetime: accessTokenLifetime ?? self.lifetime) }
    }

    /// How many requests went to `path`.
    func count(_ path: String) -> Int { self.lock.withLock { self.counts[path] ?? 0 } }

    /// How many spent refresh tokens were presented again.
    var reuses: Int { self.lock.withLock { self.reuseDetected } }

    /// Holds the requests to `path` before the server decides them, until ``release(_:)``.
    func holdRequests(_ path: String) { self.lock.withLock { _ = self.heldRequests.insert(path) } }

    /// Decides the requests to `path` when they arrive but holds their answers until ``release(_:)``.
    func holdAnswers(_ path: String) { self.lock.withLock { _ = self.heldAnswers.insert(path) } }

    /// Lets the held requests or answers of `path` go, and those that come later.
    func release(_ path: String) {
        self.lock.withLock {
            _ = self.heldRequests.remove(path)
            _ = self.heldAnswers.remove(path)
        }
    }

    func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let path = request.url?.path ?? ""
        self.lock.withLock { self.counts[path, default: 0] += 1 }
        while self.lock.withLock({ self.heldRequests.contains(path) }) { try await Task.sleep(for: .milliseconds(2)) }
        let (status, body) = self.lock.withLock { self.answer(path, request) }
        while self.lock.withLock({ self.heldAnswers.contains(path) }) { try await Task.sleep(for: .milliseconds(2)) }
        guard
            let response = HTTPURLResponse(
                url: request.url ?? Self.baseURL,
                statusCode: status,
                httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json"]
            )
        else { throw URLError(.badServerResponse) }
        return (try JSONEncoder().encode(body), response)
    }

    /// The answer to one request; `lock` is held.
    private func answer(_ path: String, _ request: URLRequest) -> (Int, [String: String]) {
        switch path {
        case "/v1/token/refresh":
            let body = request.httpBody.flatMap { try? JSONDecoder().decode([String: String].self, from: $0) }
            guard let presented = body?["refresh_token"] else { return (400, ["error": "invalid_request"]) }
            guard presented == self.liveRefreshToken else {
                if self.spent.contains(presented) {
                    self.reuseDetected += 1
                    self.endSession()
                }
                return (400, ["error": "invalid_grant"])
            }
            self.spent.insert(presented)
            return (200, Self.wire(self.issue(lifetime: self.lifetime)))
        case "/v1/logout":
            self.endSession()
            return (200, [:])
        default:
            let bearer = request.value(forHTTPHeaderField: "Authorization")?.replacingOccurrences(
                of: "Bearer ",
                with: ""
            )
            guard let bearer, self.liveAccessTokens.contains(bearer) else { return (401, ["error": "invalid_token"]) }
            return (200, [:])
        }
    }

    /// The next pair of the session; `lock` is held.
    private func issue(lifetime: TimeInterval) -> AuthTokens {
        self.serial += 1
        let refresh = "alr_refresh-\(self.serial)"
        let access = "access-\(self.serial)"
        self.liveRefreshToken = refresh
        self.liveAccessTokens.insert(access)
        return AuthTokens(
            userID: "user-1",
            sessionID: "session-1",
            accessToken: access,
            accessTokenExpiresAt: Date().addingTimeInterval(lifetime),
            refreshToken: refresh,
            refreshTokenExpiresAt: Date().addingTimeInterval(86_400)
        )
    }

    /// Ends the session: no token of it works any more; `lock` is held.
    private func endSession() {
        self.liveRefreshToken = nil
        self.liveAccessTokens.removeAll()
    }

    /// authlog's token answer for `tokens`.
    private static func wire(_ tokens: AuthTokens) -> [String: String] {
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return [
            "user_id": tokens.userID, "session_id": tokens.sessionID, "access_token": tokens.accessToken,
            "access_token_expires_at": format.string(from: tokens.accessTokenExpiresAt),
            "refresh_token": tokens.refreshToken,
            "refresh_token_expires_at": format.string(from: tokens.refreshTokenExpiresAt),
        ]
    }
}
