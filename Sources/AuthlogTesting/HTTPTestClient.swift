public import AuthlogCore
import AuthlogProviders

/// A small HTTP client for tests and the benchmark, on authlog's own outbound fetcher.
public struct HTTPTestClient: Sendable {
    /// One answer.
    public struct Answer: Sendable {
        public let status: Int
        /// The answer's headers.
        public let headers: [(name: String, value: String)]
        /// The answer's body.
        public let body: [UInt8]

        /// An answer with these parts (a test proxy hands on a changed one).
        public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The body as JSON, or `null` when it is not JSON.
        public var json: JSONValue { (try? JSONParser().parse(self.body)) ?? .null }

        /// The first header called `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// The server's base URL.
    public let baseURL: String

    /// Three minutes a request: the integration phase runs some 250 tests at once in one process on two cores,
    /// and on a slow machine an in-process server's answer has been seen to take over 90 s to be scheduled.
    /// The tests assert what is answered, not how fast (the Faults suites time a server from outside).
    private static let fetcher = AsyncHTTPFetcher(timeout: .seconds(180), maximumResponseSize: 16 << 20)

    /// Creates a client for `baseURL`.
    public init(baseURL: String) { self.baseURL = baseURL }

    /// Sends a request; `json` is sent as `application/json`.
    /// - Throws: when the server cannot be reached.
    public func send(
        _ method: String,
        _ path: String,
        json: JSONValue? = nil,
        body: [UInt8]? = nil,
        headers: [(String, String)] = []
    ) async throws -> Answer {
        var request = OutboundRequest(method: method, url: self.baseURL + path, headers: headers.map { ($0.0, $0.1) })
        if let json {
            request.headers.append(("Content-Type", "application/json"))
            request.body = json.canonicalBytes
        } else {
            request.body = body
        }
        let response = try await Self.fetcher.fetch(request)
        return Answer(status: response.status, headers: response.headers, body: response.body)
    }

    /// `POST path` with a JSON body.
    /// - Throws: when the server cannot be reached.
    public func post(_ path: String, _ json: JSONValue, headers: [(String, String)] = []) async throws -> Answer {
        try await self.send("POST", path, json: json, headers: headers)
    }
}

extension JSONValue {
    /// A JSON object from `name: value` pairs, for test bodies.
    public static func members(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(members.map { ($0.key, $0.value) })
    }
}
