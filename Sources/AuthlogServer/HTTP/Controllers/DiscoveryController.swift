import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import Hummingbird

/// What a resource server needs to find and check authlog's access tokens without being told by hand:
/// `/.well-known/jwks.json` (the current key and the previous keys of a rotation), and the same metadata at
/// OpenID Connect Discovery's `/.well-known/openid-configuration` and RFC 8414's
/// `/.well-known/oauth-authorization-server`: the issuer, the JWKS, the revocation and introspection
/// endpoints, how callers authenticate to them and how tokens are signed. authlog has no authorization or
/// token endpoint (its proofs come from the identity providers, its refreshes are `/v1/token/refresh`), so
/// the metadata names none, and no response or grant type.
struct DiscoveryController: Sendable {
    /// The JWK set, as served.
    let publicKeys: [UInt8]
    /// The metadata document, as served.
    let metadata: [UInt8]

    /// The documents for the issuer `tokens`.
    /// - Throws: ``CryptoError`` when a key cannot be exported as a JWK.
    init(tokens: AccessTokenIssuer) throws {
        self.publicKeys = try tokens.publicKeys.json().canonicalBytes
        self.metadata = Self.metadata(issuer: tokens.issuer).canonicalBytes
    }

    /// The metadata of `issuer`: every URL is the issuer's, which is where authlog serves (its `public_url`).
    static func metadata(issuer: String) -> JSONValue {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let basic: JSONValue = .array([.string("client_secret_basic")])
        return .object([
            ("issuer", .string(issuer)),
            ("jwks_uri", .string(base + "/.well-known/jwks.json")),
            ("revocation_endpoint", .string(base + "/oauth/revoke")),
            ("revocation_endpoint_auth_methods_supported", basic),
            ("introspection_endpoint", .string(base + "/oauth/introspect")),
            ("introspection_endpoint_auth_methods_supported", basic),
            // `sub` is authlog's user id, the same for every client.
            ("subject_types_supported", .array([.string("public")])),
            // Not registered by RFC 8414, which allows more members: access tokens are RFC 9068 JWTs
            // (`typ: at+jwt`) signed with ES256.
            ("access_token_signing_alg_values_supported", .array([.string("ES256")])),
            // RFC 9449 §5.1: the algorithms of the DPoP proofs authlog accepts.
            (
                "dpop_signing_alg_values_supported",
                .array(DPoPProofVerifier.algorithms.map { .string($0.rawValue) })
            ),
        ])
    }

    func register(on routes: inout RouteTable) {
        routes.add(.get, "/.well-known/jwks.json", use: self.jwks)
        routes.add(.get, "/.well-known/openid-configuration", use: self.configuration)
        routes.add(.get, "/.well-known/oauth-authorization-server", use: self.configuration)
    }

    @Sendable func jwks(_ request: Request, context: AppRequestContext) async throws -> Response {
        Self.document(self.publicKeys)
    }

    @Sendable func configuration(_ request: Request, context: AppRequestContext) async throws -> Response {
        Self.document(self.metadata)
    }

    /// A public, cacheable JSON document (five minutes: a rotation's new key is published before it signs).
    private static func document(_ bytes: [UInt8]) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json", .cacheControl: "public, max-age=300"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
