public import AuthlogAccounts
public import Hummingbird

/// Where a rule's refusal becomes HTTP: `{"error": code, "error_description": sentence}` with its status,
/// headers and `Cache-Control: no-store` (api.md).
extension ServiceError: HTTPResponseError {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        self.response()
    }

    /// The JSON answer.
    func response() -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(
            status: self.status,
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: self.jsonBody))
        )
    }
}
