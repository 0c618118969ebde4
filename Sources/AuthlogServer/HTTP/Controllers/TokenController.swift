import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import Foundation
import Hummingbird

/// `POST /v1/token/refresh`, `POST /v1/logout`, RFC 7662 `POST /oauth/introspect` and RFC 7009
/// `POST /oauth/revoke`.
struct TokenController: Sendable {
    let service: TokenService
    let body: RequestBodyReader
    let requestMetadata: RequestMetadataReader
    /// Introspection callers: id → secret.
    let introspectionClients: [String: String]

    func register(on routes: inout RouteTable) {
        routes.add(.post, "/v1/token/refresh", use: self.refresh)
        routes.add(.post, "/v1/logout", use: self.logout)
        routes.add(.post, "/oauth/introspect", use: self.introspect)
        routes.add(.post, "/oauth/revoke", use: self.revoke)
    }

    @Sendable func refresh(_ request: Request, context: AppRequestContext) async throws -> Response {
        let document: JSONValue
        let token: String
        do {
            document = try await self.body.jsonObject(of: request)
            guard let value = try document.optionalString("refresh_token"), !value.isEmpty else {
                throw RequestBodyReader.Refusal.malformed("refresh_token is required.")
            }
            token = value
        } catch let refusal as RequestBodyReader.Refusal {
            throw self.service.refuseUnreadable(reason: refusal.reason, answer: refusal.answer)
        }
        let answer = try await self.service.refresh(
            token,
            metadata: self.requestMetadata.metadata(of: request, context: context)
        )
        return JSONResponse.make(answer.json)
    }

    @Sendable func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let bearer = Self.bearer(request) else {
            throw ServiceError.missingAccessToken("Send the access token as Authorization: Bearer.")
        }
        let scope: LogoutScope
        do {
            let document = try await self.body.jsonObject(of: request, allowEmpty: true)
            let text = try document.optionalString("scope") ?? "this"
            guard let parsed = LogoutScope(rawValue: text) else {
                throw RequestBodyReader.Refusal.malformed("scope must be this or all.")
            }
            scope = parsed
        } catch let refusal as RequestBodyReader.Refusal {
            throw await self.service.refuseUnreadableLogout(
                bearer: bearer,
                reason: refusal.reason,
                answer: refusal.answer
            )
        }
        try await self.service.logout(
            bearer: bearer,
            scope: scope,
            metadata: self.requestMetadata.metadata(of: request, context: context)
        )
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    @Sendable func introspect(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (_, fields) = try await self.authenticatedForm(request, purpose: .introspection)
        guard let token = fields.first(where: { $0.name == "token" })?.value, !token.isEmpty else {
            throw ClientCall.introspection.refused(.malformedRequest, ServiceError.badRequest("token is required."))
        }
        return JSONResponse.make(try await self.service.introspect(token))
    }

    /// RFC 7009: 200 with an empty body whether or not the token was known (§2.2).
    @Sendable func revoke(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (clientID, fields) = try await self.authenticatedForm(request, purpose: .revocation)
        guard let token = fields.first(where: { $0.name == "token" })?.value, !token.isEmpty else {
            throw ClientCall.revocation.refused(.malformedRequest, ServiceError.badRequest("token is required."))
        }
        var hint: TokenTypeHint?
        if let text = fields.first(where: { $0.name == "token_type_hint" })?.value {
            guard let parsed = TokenTypeHint(rawValue: text) else {
                throw ClientCall.revocation.refused(
                    .malformedRequest,
                    ServiceError(
                        .badRequest,
                        "unsupported_token_type",
                        "token_type_hint must be access_token or refresh_token."
                    )
                )
            }
            hint = parsed
        }
        try await self.service.revoke(
            token,
            hint: hint,
            clientID: clientID,
            metadata: self.requestMetadata.metadata(of: request, context: context)
        )
        return Response(status: .ok, headers: [.cacheControl: "no-store"])
    }

    /// The calling client's id and the form body, for the OAuth endpoints: HTTP Basic client credentials,
    /// then an `application/x-www-form-urlencoded` body. A refusal names no session: it is counted by address
    /// (``ClientCall/refused(_:_:)``), so guessing a client's secret is on the record without an event a guess.
    private func authenticatedForm(
        _ request: Request,
        purpose: ClientCall
    ) async throws(ServiceError) -> (clientID: String, fields: [(name: String, value: String)]) {
        guard let clientID = self.authenticatedClient(request) else {
            throw purpose.refused(
                nil,
                ServiceError(
                    .unauthorized,
                    "invalid_client",
                    "\(purpose.name) needs client credentials (HTTP Basic).",
                    headers: [.wwwAuthenticate: "Basic realm=\"authlog\""]
                )
            )
        }
        do {
            let bytes = try await self.body.bytes(of: request)
            guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
            else {
                throw RequestBodyReader.Refusal.unsupportedMediaType(expected: "application/x-www-form-urlencoded")
            }
            guard let decoded = FormEncoding.decode(String(decoding: bytes, as: UTF8.self)) else {
                throw RequestBodyReader.Refusal.malformed("The form body is malformed.")
            }
            return (clientID, decoded)
        } catch let refusal as RequestBodyReader.Refusal {
            throw purpose.refused(refusal.reason, refusal.answer)
        } catch {
            throw purpose.refused(.malformedRequest, ServiceError.badRequest("The form body could not be read."))
        }
    }

    /// The access token of `Authorization: Bearer …` or, for a DPoP-bound token, `Authorization: DPoP …`
    /// (RFC 9449 §7.1). Which scheme a bound token may use, and its proof, the rules check (``DPoPOffer``).
    static func bearer(_ request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        for scheme in ["bearer ", "dpop "]
        where header.count > scheme.count && header.prefix(scheme.count).lowercased() == scheme {
            return String(header.dropFirst(scheme.count)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The client id of valid HTTP Basic client credentials, else `nil`.
    private func authenticatedClient(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.prefix(6).lowercased() == "basic ",
            let decoded = Data(base64Encoded: String(header.dropFirst(6))).map({ String(decoding: $0, as: UTF8.self) }),
            let colon = decoded.firstIndex(of: ":")
        else { return nil }
        let id = String(decoded[..<colon])
        let secret = Array(decoded[decoded.index(after: colon)...].utf8)
        guard let expected = self.introspectionClients[id], ConstantTime.equals(secret, Array(expected.utf8)) else {
            return nil
        }
        return id
    }
}

/// The OAuth client calls, RFC 7662 introspection and RFC 7009 revocation: their refusals before a token is
/// looked at (wrong client credentials, a form that cannot be read) name no session, and are counted by
/// address as `<call>_<reason>` (`introspect_invalid_client`, `revoke_malformed_request`, …).
enum ClientCall: String {
    case introspection = "introspect"
    case revocation = "revoke"

    /// The call's name for people.
    var name: String { self == .introspection ? "Introspection" : "Revocation" }

    /// `answer` with its refusal to count: `invalid_client` when `reason` is nil, else the body's reason.
    func refused(_ reason: RequestRefusalReason?, _ answer: ServiceError) -> ServiceError {
        var answer = answer
        let kind = reason?.rawValue ?? "invalid_client"
        answer.tokenUseRefusal = TokenUseRefusal(reason: self.rawValue + "_" + kind, session: nil)
        return answer
    }
}
