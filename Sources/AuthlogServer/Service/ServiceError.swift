public import Hummingbird
import AuthlogCore

/// An answer that is not a success: `{"error": code, "error_description": sentence}` with its status
/// (api.md). This is the only place where failures become HTTP.
public struct ServiceError: Error, HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    /// The machine-readable code.
    public let code: String
    /// One sentence for a person; never a token, code or nonce.
    public let errorDescription: String
    /// Extra headers (`WWW-Authenticate`, `Retry-After`).
    public var headers: HTTPFields

    /// Creates an error answer.
    public init(_ status: HTTPResponse.Status, _ code: String, _ errorDescription: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.errorDescription = errorDescription
        self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        self.response()
    }

    /// The JSON answer.
    func response() -> Response {
        let body = JSONValue.object([("error", .string(self.code)), ("error_description", .string(self.errorDescription))])
        var headers = self.headers
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: self.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body.canonicalBytes)))
    }

    /// 400 `invalid_request`.
    static func badRequest(_ description: String) -> ServiceError { ServiceError(.badRequest, "invalid_request", description) }

    /// 401 with a bearer challenge.
    static func invalidToken(_ description: String) -> ServiceError {
        ServiceError(.unauthorized, "invalid_token", description, headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""])
    }

    /// 503 when PostgreSQL cannot be reached; the action is not performed (fail closed).
    static let databaseUnavailable = ServiceError(
        .serviceUnavailable, "database_unavailable", "The audit log cannot be written right now; nothing was done.",
        headers: [.retryAfter: "5"])
}
