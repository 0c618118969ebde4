import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
public import Foundation
import Hummingbird
import NIOCore

extension FakeIdentityProvider {
    /// One call to a revocation route, as the fake received it.
    public struct RecordedCall: Sendable {
        /// `POST` or `DELETE`.
        public var method: String
        /// The path, such as `/auth/revoke`.
        public var path: String
        /// The `Authorization` header.
        public var authorization: String?
        /// The form fields, or the string members of a JSON body.
        public var fields: [String: String]
    }

    /// How a route fails when told to.
    public enum Failure: Sendable {
        /// 503, as when the provider is down.
        case down
        /// This status (100...599; anything else answers 500) and body.
        case status(Int, String)
    }

    /// The recorded calls to `path` (exactly, such as `/applications/gh-client-id/grant`), oldest first.
    ///
    /// Calls are recorded before anything is checked, so refused calls, calls to a route told to fail and calls
    /// while ``isDown`` count too.
    public func calls(to path: String) -> [RecordedCall] {
        self.state.withLock { $0.calls.filter { $0.path == path } }
    }

    /// Makes the route at `path` fail (after recording the call); `nil` restores it.
    public func setFailure(_ failure: Failure?, forPath path: String) {
        self.state.withLock { $0.failures[path] = failure }
    }

    /// The admin key Kakao's `/v1/user/unlink` accepts (`Authorization: KakaoAK <key>`).
    public func setKakaoAdminKey(_ key: String) {
        self.state.withLock { $0.kakaoAdminKey = key }
    }

    /// An Apple server-to-server notification JWT: RS256 with this fake's key and ``kid`` (or, with
    /// `signedWithForeignKey`, a fresh key it does not publish), claims `iss`, `aud`, `iat`, `jti` and `events`, a
    /// JSON *string* with `type`, `sub`, `event_time` (milliseconds; `nil`: now) and `email` when given.
    /// - Throws: when signing fails.
    public func makeAppleNotification(
        subject: String,
        type: String,
        audience: String,
        issuer: String = "https://appleid.apple.com",
        jti: String = UUID().uuidString,
        issuedAt: Int64 = Int64(Date().timeIntervalSince1970),
        eventTime: Int64? = nil,
        email: String? = nil,
        signedWithForeignKey: Bool = false
    ) throws -> String {
        let eventTime = eventTime ?? Int64(Date().timeIntervalSince1970 * 1000)
        var events: [(name: String, value: JSONValue)] = [
            ("type", .string(type)), ("sub", .string(subject)), ("event_time", .number(String(eventTime))),
        ]
        if let email { events.append(("email", .string(email))) }
        let claims: [(name: String, value: JSONValue)] = [
            ("iss", .string(issuer)), ("aud", .string(audience)), ("iat", .number(String(issuedAt))),
            ("jti", .string(jti)), ("events", .string(JSONValue.object(events).canonicalText)),
        ]
        return try self.sign(claims, key: signedWithForeignKey ? try PrivateKey.generate(for: .rs256) : nil)
    }

    func addRevocationRoutes(to router: Router<BasicRequestContext>) {
        router.post("/auth/revoke") { request, _ in
            let fields = try await Self.form(request)
            guard fields["client_id"]?.isEmpty == false, fields["client_secret"]?.isEmpty == false else {
                return Self.json(.object([("error", .string("invalid_client"))]), status: .badRequest)
            }
            return Self.json(.object([]))
        }
        router.delete("/applications/{client_id}/grant") { request, context in
            let clientID = context.parameters.get("client_id") ?? ""
            let client = self.state.withLock { $0.githubClient }
            let expected = "Basic " + Data("\(client?.id ?? ""):\(client?.secret ?? "")".utf8).base64EncodedString()
            guard let client, client.id == clientID, request.headers[.authorization] == expected else {
                return Self.json(.object([("message", .string("Bad credentials"))]), status: .unauthorized)
            }
            let fields = Self.jsonStrings(try await request.body.collect(upTo: 65536))
            guard fields["access_token"]?.isEmpty == false else {
                return Self.json(.object([("message", .string("Validation Failed"))]), status: .unprocessableContent)
            }
            return Response(status: .noContent)
        }
        router.post("/v1/user/unlink") { request, _ in
            let fields = try await Self.form(request)
            let adminKey = self.state.withLock { $0.kakaoAdminKey }
            guard let adminKey, request.headers[.authorization] == "KakaoAK \(adminKey)" else {
                return Self.json(
                    .object([("msg", .string("wrong admin key")), ("code", .number("-401"))]),
                    status: .unauthorized
                )
            }
            guard fields["target_id_type"] == "user_id", let target = fields["target_id"].flatMap({ Int64($0) }) else {
                return Self.json(
                    .object([("msg", .string("invalid target")), ("code", .number("-2"))]),
                    status: .badRequest
                )
            }
            return Self.json(.object([("id", .number(String(target)))]))
        }
    }

    /// The revocation route `request` is for (its exact path), if any.
    static func revocationPath(_ request: Request) -> String? {
        let path = request.uri.path
        switch request.method {
        case .post where path == "/auth/revoke" || path == "/v1/user/unlink":
            return path
        case .delete:
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 4, parts[0].isEmpty, parts[1] == "applications", !parts[2].isEmpty, parts[3] == "grant"
            else { return nil }
            return path
        default:
            return nil
        }
    }

    /// The string members of a JSON object body (empty when it is not one).
    static func jsonStrings(_ body: ByteBuffer) -> [String: String] {
        guard case .object(let members)? = try? JSONParser().parse(Array(buffer: body)) else { return [:] }
        var fields: [String: String] = [:]
        for member in members where fields[member.name] == nil {
            if let text = member.value.stringValue { fields[member.name] = text }
        }
        return fields
    }

    /// Records a call to a revocation route; returns the answer when the route is told to fail.
    func record(_ request: Request, path: String, body: ByteBuffer) -> Response? {
        let fields: [String: String]
        if request.method == .delete {
            fields = Self.jsonStrings(body)
        } else {
            let pairs = FormEncoding.decode(String(buffer: body)) ?? []
            fields = Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        }
        let call = RecordedCall(
            method: request.method.rawValue,
            path: path,
            authorization: request.headers[.authorization],
            fields: fields
        )
        let failure = self.state.withLock { state in
            state.calls.append(call)
            return state.failures[path]
        }
        switch failure {
        case nil:
            return nil
        case .down?:
            return Self.json(.object([]), status: .serviceUnavailable)
        case .status(let code, let body)?:
            return Response(
                status: HTTPResponse.Status(code: (100...599).contains(code) ? code : 500),
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: body))
            )
        }
    }

    /// Records every call to a revocation route, before ``isDown``, a failure or the route itself answers.
    struct RecordingMiddleware: RouterMiddleware {
        let provider: FakeIdentityProvider

        func handle(
            _ request: Request,
            context: BasicRequestContext,
            next: (Request, BasicRequestContext) async throws -> Response
        ) async throws -> Response {
            guard let path = FakeIdentityProvider.revocationPath(request) else {
                return try await next(request, context)
            }
            var request = request
            let body = try await request.collectBody(upTo: 65536)
            if let failure = self.provider.record(request, path: path, body: body) { return failure }
            return try await next(request, context)
        }
    }
}
