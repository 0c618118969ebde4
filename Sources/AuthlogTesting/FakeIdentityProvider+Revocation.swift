public import AuthlogCore
public import AuthlogCrypto
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
        /// This status and body.
        case status(Int, String)
    }

    /// The recorded calls to `path`, oldest first.
    public func calls(to path: String) -> [RecordedCall] {
        self.state.withLock { $0.calls.filter { $0.path == path } }
    }

    /// Makes the route at `path` fail (after recording the call); `nil` restores it.
    public func setFailure(_ failure: Failure?, forPath path: String) {
        self.state.withLock { $0.failures[path] = failure }
    }

    /// The admin key Kakao's `/v1/user/unlink` accepts.
    public func setKakaoAdminKey(_ key: String) {
        self.state.withLock { $0.kakaoAdminKey = key }
    }

    /// An Apple server-to-server notification JWT: RS256 with this fake's key (or a key it does not publish),
    /// `events` a JSON *string* with `type`, `sub`, `event_time` (ms) and `email` when given.
    /// - Throws: when signing fails.
    public func makeAppleNotification(
        subject: String,
        type: String,
        audience: String,
        issuer: String = "https://appleid.apple.com",
        jti: String = UUID().uuidString,
        issuedAt: Int64 = Int64(Date().timeIntervalSince1970),
        email: String? = nil,
        signedWithForeignKey: Bool = false
    ) throws -> String {
        var events: [(name: String, value: JSONValue)] = [
            ("type", .string(type)), ("sub", .string(subject)), ("event_time", .number(String(issuedAt * 1000))),
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
            if let failure = self.record(request, path: "/auth/revoke", fields: fields) { return failure }
            guard fields["client_id"]?.isEmpty == false, fields["client_secret"]?.isEmpty == false else {
                return Self.json(.object([("error", .string("invalid_client"))]), status: .badRequest)
            }
            return Self.json(.object([]))
        }
        router.delete("/applications/{client_id}/grant") { request, context in
            let clientID = context.parameters.get("client_id") ?? ""
            let path = "/applications/\(clientID)/grant"
            let body = try await request.body.collect(upTo: 65536)
            let document = (try? JSONParser().parse(Array(buffer: body))) ?? .emptyObject
            var fields: [String: String] = [:]
            if case .object(let members) = document {
                for member in members { if let text = member.value.stringValue { fields[member.name] = text } }
            }
            if let failure = self.record(request, path: path, fields: fields) { return failure }
            let client = self.state.withLock { $0.githubClient }
            let expected = "Basic " + Data("\(client?.id ?? ""):\(client?.secret ?? "")".utf8).base64EncodedString()
            guard client?.id == clientID, request.headers[.authorization] == expected else {
                return Self.json(.object([]), status: .unauthorized)
            }
            guard fields["access_token"] != nil else {
                return Self.json(.object([("message", .string("Validation Failed"))]), status: .unprocessableContent)
            }
            return Response(status: .noContent)
        }
        router.post("/v1/user/unlink") { request, _ in
            let fields = try await Self.form(request)
            if let failure = self.record(request, path: "/v1/user/unlink", fields: fields) { return failure }
            let adminKey = self.state.withLock { $0.kakaoAdminKey }
            guard let adminKey, request.headers[.authorization] == "KakaoAK \(adminKey)" else {
                return Self.json(
                    .object([("msg", .string("wrong admin key")), ("code", .number("-401"))]),
                    status: .unauthorized
                )
            }
            guard let target = fields["target_id"], Int64(target) != nil else {
                return Self.json(
                    .object([("msg", .string("no target")), ("code", .number("-2"))]),
                    status: .badRequest
                )
            }
            return Self.json(.object([("id", .number(target))]))
        }
    }

    /// Records a call and returns the failure answer when the route is told to fail.
    private func record(_ request: Request, path: String, fields: [String: String]) -> Response? {
        let failure = self.state.withLock { state in
            state.calls.append(
                RecordedCall(
                    method: request.method.rawValue,
                    path: path,
                    authorization: request.headers[.authorization],
                    fields: fields
                )
            )
            return state.failures[path]
        }
        switch failure {
        case nil: return nil
        case .down?: return Self.json(.object([]), status: .serviceUnavailable)
        case .status(let code, let body)?:
            return Response(
                status: HTTPResponse.Status(code: code),
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: body))
            )
        }
    }
}
