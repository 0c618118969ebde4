@_spi(Testing) import AuthlogClient
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// authlog's sign-in, refresh and logout routes in memory, as an ``HTTPTransport`` for the client's tests of the
/// device id and sign-in alerts: it records each request's `Authlog-Device-Id`, and puts the `signin_alert`
/// members queued with ``queueAlert(_:)`` (any JSON, well-formed or not) in the next token answers.
///
/// `@unchecked Sendable`: every stored `var` is read and written only while `lock` is held.
final class AlertingTokenServer: HTTPTransport, @unchecked Sendable {
    static let baseURL = URL(string: "http://authlog.test") ?? URL(fileURLWithPath: "/")

    /// One request as the server saw it.
    struct Received: Sendable, Equatable {
        var path: String
        /// Its `Authlog-Device-Id` header, if any.
        var deviceID: String?
    }

    private let lock = NSLock()
    private var serial = 0
    private var liveRefreshTokens: Set<String> = []
    /// The `signin_alert` members of the next token answers, first first, as JSONSerialization reads them.
    private var alerts: [Any] = []
    private var log: [Received] = []
    /// The `error` every refresh is refused with (401), when set.
    private var refreshRefusal: String?

    /// Every request so far, in order.
    var received: [Received] { self.lock.withLock { self.log } }

    /// The `Authlog-Device-Id` of each sign-in and refresh so far, in order.
    var tokenRequestDeviceIDs: [String?] {
        self.received.filter { $0.path.hasPrefix("/v1/signin/") || $0.path == "/v1/token/refresh" }.map(\.deviceID)
    }

    /// Puts `json` (a JSON text, such as `{"event_id": …}` or `"oops"`) as `signin_alert` in the next token answer.
    /// - Throws: when `json` is not JSON.
    func queueAlert(_ json: String) throws {
        let member = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        self.lock.withLock { self.alerts.append(member) }
    }

    /// Refuses every refresh from now on with 401 and `code` (`signin_unusual`, `reauthentication_required`).
    func refuseRefreshes(with code: String) { self.lock.withLock { self.refreshRefusal = code } }

    func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let path = request.url?.path ?? ""
        let (status, object) = self.lock.withLock {
            self.log.append(Received(path: path, deviceID: request.value(forHTTPHeaderField: "Authlog-Device-Id")))
            return self.answer(path, request)
        }
        guard
            let response = HTTPURLResponse(
                url: request.url ?? Self.baseURL,
                statusCode: status,
                httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json"]
            )
        else { throw URLError(.badServerResponse) }
        return (try JSONSerialization.data(withJSONObject: object), response)
    }

    /// The answer to one request; `lock` is held.
    private func answer(_ path: String, _ request: URLRequest) -> (Int, [String: Any]) {
        switch path {
        case "/v1/signin/dev":
            return (200, self.tokens(session: UUID().uuidString.lowercased()))
        case "/v1/token/refresh":
            if let code = self.refreshRefusal { return (401, ["error": code, "error_description": "refused"]) }
            let body = request.httpBody.flatMap { try? JSONDecoder().decode([String: String].self, from: $0) }
            guard let presented = body?["refresh_token"], self.liveRefreshTokens.remove(presented) != nil,
                let session = presented.split(separator: "/").first
            else { return (400, ["error": "invalid_grant"]) }
            return (200, self.tokens(session: String(session)))
        case "/v1/logout":
            return (200, [:])
        default:
            return (404, ["error": "not_found"])
        }
    }

    /// A token answer for a new pair of `session`, with the next queued alert; `lock` is held.
    private func tokens(session: String) -> [String: Any] {
        self.serial += 1
        let refresh = "\(session)/refresh-\(self.serial)"
        self.liveRefreshTokens.insert(refresh)
        let format = ISO8601DateFormatter()
        var object: [String: Any] = [
            "user_id": "user-1", "session_id": session, "is_new_user": false,
            "access_token": "access-\(self.serial)",
            "access_token_expires_at": format.string(from: Date().addingTimeInterval(900)),
            "refresh_token": refresh,
            "refresh_token_expires_at": format.string(from: Date().addingTimeInterval(86_400)),
        ]
        if !self.alerts.isEmpty { object["signin_alert"] = self.alerts.removeFirst() }
        return object
    }
}
