import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// authlog's base URL and the transport: builds requests, sends them, and reads answers and errors.
struct APIConnection: Sendable {
    let baseURL: URL
    let transport: any HTTPTransport
    let userAgent: String?
    /// The install's device id, sent with each sign-in and refresh.
    let deviceIDs: DeviceIDCache
    /// The install's DPoP key and the servers' nonces, or `nil` when the client's configuration turns DPoP off.
    let dpop: DPoPProver?

    /// A request for `path` (such as `/v1/me`) with `query` and a JSON `body`.
    func request(
        _ method: String,
        _ path: String,
        query: [URLQueryItem] = [],
        body: [String: BodyValue]? = nil
    ) throws -> URLRequest {
        let url = self.baseURL.appendingPathComponent(String(path.drop { $0 == "/" }))
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        if !query.isEmpty { components?.queryItems = query }
        guard let target = components?.url else {
            throw AuthlogClientError(.invalidResponse, detail: "The request URL cannot be built.")
        }
        var request = URLRequest(url: target)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let userAgent = self.userAgent { request.setValue(userAgent, forHTTPHeaderField: "User-Agent") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode(body)
        }
        return request
    }

    /// `request` with the install's device id as `Authlog-Device-Id` (sign-ins and refreshes), or as it is when the
    /// token store keeps no id or cannot give it now: authlog then goes by the user agent and the network.
    func identified(_ request: URLRequest) async -> URLRequest {
        guard let deviceID = await self.deviceIDs.current() else { return request }
        var identified = request
        identified.setValue(deviceID, forHTTPHeaderField: DeviceID.header)
        return identified
    }

    /// Whether `url` is one of authlog's own (the base URL's scheme, host and port, and a path under its path).
    func isOwn(_ url: URL?) -> Bool {
        guard let url else { return false }
        let base = self.baseURL
        guard url.scheme?.lowercased() == base.scheme?.lowercased(), url.host?.lowercased() == base.host?.lowercased(),
            url.port == base.port
        else { return false }
        let prefix = base.path.hasSuffix("/") ? base.path : base.path + "/"
        return base.path.isEmpty || url.path == base.path || url.path.hasPrefix(prefix)
    }

    /// Sends `request`; a failure to get an answer becomes ``AuthlogClientError/Code/transport``. With a `limit`,
    /// the body is read no further than that many bytes (``AuthlogClientError/Code/answerTooLarge`` past it). A
    /// `DPoP-Nonce` in the answer is kept for the next proofs to its server, and so is how far its `Date` is from
    /// the device's clock.
    func perform(_ request: URLRequest, limit: Int? = nil) async throws -> (Data, HTTPURLResponse) {
        let answer: (Data, HTTPURLResponse)
        do {
            if let limit {
                answer = try await self.transport.data(for: request, limit: limit)
            } else {
                answer = try await self.transport.data(for: request)
            }
        } catch let error as AuthlogClientError {
            throw error
        } catch {
            throw AuthlogClientError(.transport, detail: Self.describe(error))
        }
        self.dpop?.nonces.record(answer.1, for: request.url)
        self.dpop?.clock.record(answer.1, for: request.url)
        return answer
    }

    /// Throws authlog's error when `response` is not a success.
    static func check(_ data: Data, _ response: HTTPURLResponse) throws {
        guard !(200..<300).contains(response.statusCode) else { return }
        let answer = try? JSONDecoder().decode(ErrorAnswer.self, from: data)
        let code = AuthlogClientError.Code(rawValue: answer?.error ?? "http_\(response.statusCode)")
        let isDPoP = code == .invalidDPoPProof || code == .useDPoPNonce
        throw AuthlogClientError(
            code,
            status: response.statusCode,
            detail: answer?.errorDescription,
            providers: answer?.providers ?? [],
            dpopReason: isDPoP ? answer?.reason.map(AuthlogClientError.DPoPReason.init(rawValue:)) : nil
        )
    }

    /// The `error` member of an error answer, if it is one.
    static func errorCode(_ data: Data) -> String? {
        (try? JSONDecoder().decode(ErrorAnswer.self, from: data))?.error
    }

    /// `type` decoded from a successful answer.
    static func decode<Answer: Decodable>(_ type: Answer.Type, _ data: Data) throws -> Answer {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw AuthlogClientError(.invalidResponse, detail: "The answer is not the expected JSON.")
        }
    }

    /// How long a refresh waits for its answer: well inside authlog's default grace window (10 s), so that
    /// a stalled answer is retried while the retry still gets the same pair (URLRequest's default is 60 s).
    static let refreshTimeout: TimeInterval = 3

    /// `POST /v1/token/refresh`, with the device id and, for tokens bound to the key, a DPoP proof: the next
    /// pair for `tokens`, with the same provider, the events the answer names, and its sign-in alert, if any.
    func refresh(_ tokens: AuthTokens) async throws -> (tokens: AuthTokens, eventIDs: [String], alert: SigninAlert?) {
        // Bound tokens sent without a proof would be refused `dpop_missing`, which ends the session on the device
        // (and for every process sharing the store): a client with DPoP off keeps them instead, unrefreshed.
        guard !tokens.isDPoPBound || self.dpop != nil else {
            throw AuthlogClientError(
                .dpopKeyUnavailable,
                detail: "The session is bound to this install's DPoP key and this client has DPoP off."
            )
        }
        var request = await self.identified(
            try self.request("POST", "/v1/token/refresh", body: ["refresh_token": .string(tokens.refreshToken)])
        )
        request.timeoutInterval = Self.refreshTimeout
        // A Bearer family takes no proof: a family is bound at sign-in only, and authlog refuses a proof for an
        // unbound one (`dpop_family_unbound`).
        let (data, response) =
            tokens.isDPoPBound
            ? try await self.performProved(request, needsKey: true) : try await self.perform(request, limit: nil)
        try Self.check(data, response)
        let answer = try Self.decode(TokenAnswer.self, data)
        return (
            try answer.tokens(provider: tokens.provider), EventIDs.named(by: response, body: answer.eventIDs ?? []),
            answer.signinAlert
        )
    }

    /// The kind of a transport error without its text (which may hold a URL): its type and code.
    private static func describe(_ error: any Error) -> String {
        if let url = error as? URLError { return "No answer from the server (URLError \(url.code.rawValue))." }
        return "No answer from the server (\(type(of: error)))."
    }
}

/// `{"error", "error_description", "providers", "reason"}`.
struct ErrorAnswer: Decodable {
    let error: String?
    let errorDescription: String?
    let providers: [String]?
    /// The check a refused DPoP proof failed (`dpop_wrong_key`, …).
    let reason: String?

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case providers
        case reason
    }
}
