/// An outbound HTTP request to an identity provider.
public struct OutboundRequest: Sendable {
    /// `GET`, `POST` or `DELETE`.
    public var method: String
    /// The absolute URL.
    public var url: String
    /// Request headers, in order.
    public var headers: [(name: String, value: String)]
    /// The body, if any.
    public var body: [UInt8]?

    /// Creates a request.
    public init(
        method: String = "GET",
        url: String,
        headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A form-encoded POST (`application/x-www-form-urlencoded`).
    public static func form(
        url: String,
        fields: [(name: String, value: String)],
        headers: [(name: String, value: String)] = []
    ) -> OutboundRequest {
        OutboundRequest(
            method: "POST",
            url: url,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")] + headers,
            body: Array(FormEncoding.encode(fields).utf8)
        )
    }
}

/// A provider's answer.
public struct OutboundResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Response headers, in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header called `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// Sends outbound HTTP requests; ``AsyncHTTPFetcher`` is the real one.
public protocol HTTPFetching: Sendable {
    /// Sends `request` and returns the provider's answer, whatever its status.
    /// - Throws: ``ProviderError`` `.providerUnavailable` when the provider cannot be reached in time.
    func fetch(_ request: OutboundRequest) async throws(ProviderError) -> OutboundResponse
}
