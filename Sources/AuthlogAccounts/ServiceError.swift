public import AuthlogCore
import Foundation
public import HTTPTypes

/// An answer that is not a success: `{"error": code, "error_description": sentence}` with its status
/// (api.md). This is the only place where failures become HTTP.
public struct ServiceError: Error, Sendable {
    public let status: HTTPResponse.Status
    /// The machine-readable code.
    public let code: String
    /// One sentence for a person; never a token, code or nonce.
    public let errorDescription: String
    /// Extra headers (`WWW-Authenticate`, `Retry-After`).
    public var headers: HTTPFields
    /// For the server's log only, never the answer: the kind of failure behind a 500.
    public var logDetail: String?
    /// Members the answer carries after `error` and `error_description` (`providers` of `account_exists`).
    public var extraMembers: [(name: String, value: JSONValue)] = []
    /// For the HTTP layer only, never the answer: a refused token (a DPoP refusal, an access token that is
    /// missing, not valid or of an ended session) at a route whose rules do not record it themselves, to be
    /// counted into the aggregated refusal events.
    public var tokenUseRefusal: TokenUseRefusal?

    /// Creates an error answer.
    public init(_ status: HTTPResponse.Status, _ code: String, _ errorDescription: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.errorDescription = errorDescription
        self.headers = headers
    }

    /// The answer's body: `{"error": code, "error_description": sentence}`.
    public var jsonBody: [UInt8] {
        JSONValue.object(
            [("error", .string(self.code)), ("error_description", .string(self.errorDescription))] + self.extraMembers
        ).canonicalBytes
    }

    /// 400 `invalid_request`.
    public static func badRequest(_ description: String) -> ServiceError {
        ServiceError(.badRequest, "invalid_request", description)
    }

    /// 401 with a bearer challenge.
    public static func invalidToken(_ description: String) -> ServiceError {
        ServiceError(
            .unauthorized,
            "invalid_token",
            description,
            headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""]
        )
    }

    /// 401 `invalid_token` for a request to an access-token route without a token, with `challenge` as its
    /// `WWW-Authenticate`: counted by the HTTP layer as `access_token_missing` of its address
    /// (``tokenUseRefusal``).
    public static func missingAccessToken(
        _ description: String,
        challenge: String = "Bearer error=\"invalid_token\""
    ) -> ServiceError {
        var error = ServiceError(.unauthorized, "invalid_token", description, headers: [.wwwAuthenticate: challenge])
        error.tokenUseRefusal = TokenUseRefusal(reason: TokenUseRefusal.missingAccessToken, session: nil)
        return error
    }

    /// The answer for a failure below the service (the store, a connection): 503 `database_unavailable`
    /// only when PostgreSQL cannot be reached or is shutting down, since a 503 means exactly that; any
    /// other failure is our own and a 500 `internal_error`; either keeps the kind of failure for the log.
    public static func failure(_ error: any Error) -> ServiceError {
        if let error = error as? ServiceError { return error }
        if let error = error as? any StoreFailure, error.meansStoreUnreachable {
            var answer = ServiceError.databaseUnavailable
            answer.logDetail = error.logDetail.trimmingCharacters(in: .whitespaces)
            return answer
        }
        var answer = ServiceError(
            .internalServerError,
            "internal_error",
            "Something went wrong on our side; nothing was done."
        )
        answer.logDetail = (error as? any StoreFailure)?.logDetail ?? "\(type(of: error))"
        return answer
    }

    /// 503 when PostgreSQL cannot be reached; the action is not performed (fail closed).
    public static let databaseUnavailable = ServiceError(
        .serviceUnavailable,
        "database_unavailable",
        "The audit log cannot be written right now; nothing was done.",
        headers: [.retryAfter: "5"]
    )
}
