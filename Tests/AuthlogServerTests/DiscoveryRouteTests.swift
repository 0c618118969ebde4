import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogServer
import Foundation
import HTTPTypes
import Testing

/// The discovery documents of authlog's own tokens: the same metadata at OpenID Connect Discovery's and
/// RFC 8414's well-known paths, and a JWKS that keeps the previous keys of a rotation.
@Suite struct DiscoveryRouteTests {
    @Test func bothWellKnownPathsServeTheIssuersMetadata() async throws {
        let routes = try AccountRouter { $0.publicURL = "https://auth.test" }
        try await routes.run { client in
            let openID = try await client.send(.get, "/.well-known/openid-configuration")
            let oauth = try await client.send(.get, "/.well-known/oauth-authorization-server")
            #expect(openID.status == 200 && oauth.status == 200)
            #expect(openID.body == oauth.body)
            #expect(openID.headers[.contentType] == "application/json")
            #expect(openID.headers[.cacheControl] == "public, max-age=300")
            let metadata = openID.json
            #expect(metadata["issuer"]?.stringValue == "https://auth.test")
            #expect(metadata["jwks_uri"]?.stringValue == "https://auth.test/.well-known/jwks.json")
            #expect(metadata["revocation_endpoint"]?.stringValue == "https://auth.test/oauth/revoke")
            #expect(metadata["introspection_endpoint"]?.stringValue == "https://auth.test/oauth/introspect")
            #expect(metadata["revocation_endpoint_auth_methods_supported"] == .array([.string("client_secret_basic")]))
            #expect(metadata["access_token_signing_alg_values_supported"] == .array([.string("ES256")]))
            #expect(metadata["authorization_endpoint"] == nil && metadata["token_endpoint"] == nil, "authlog has none")
        }
    }

    @Test func theIssuerIsTheOneInTheTokens() async throws {
        let routes = try AccountRouter { $0.publicURL = "https://auth.test" }
        try await routes.run { client in
            let signedIn = try await client.signIn("alice")
            let token = try #require(signedIn["access_token"]?.stringValue)
            let payload = try JSONParser().parse(Base64URL.decode(String(token.split(separator: ".")[1])) ?? [])
            let metadata = try await client.send(.get, "/.well-known/openid-configuration").json
            #expect(payload["iss"] == metadata["issuer"])
        }
    }

    @Test func afterARotationTheJWKSListsTheNewKeyThenThePreviousOnes() async throws {
        let old = try PrivateKey.generate(for: .es256)
        let older = try PrivateKey.generate(for: .es256)
        let new = try PrivateKey.generate(for: .es256)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-rotation-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A previous key may be given as its private PEM (the file that signed before) or as its public PEM.
        try Data(try old.pemRepresentation().utf8).write(to: URL(fileURLWithPath: folder + "/old.pem"))
        try Data(try older.publicKeyPEM().utf8).write(to: URL(fileURLWithPath: folder + "/older.pub.pem"))
        let routes = try AccountRouter(accessTokenKey: new) {
            $0.accessToken = try? JSONValue.members([
                "previous_key_files": .array([.string(folder + "/old.pem"), .string(folder + "/older.pub.pem")])
            ]).decode(ServerConfiguration.AccessTokenSettings.self)
        }
        try await routes.run { client in
            let jwks = try await client.send(.get, "/.well-known/jwks.json")
            #expect(jwks.status == 200)
            let kids = jwks.json["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue }
            let expected = try [new, old, older].map { try AccessTokenIssuer.keyID(of: $0.publicKey()) }
            #expect(kids == expected)
        }
    }

    @Test func aPreviousKeyFileThatHoldsNoES256KeyIsRefusedNamingIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-rotation-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ed25519 = folder + "/checkpoint.pem"
        try Data(try PrivateKey.generate(for: .edDSA).pemRepresentation().utf8).write(to: URL(fileURLWithPath: ed25519))
        for (file, message) in [
            (ed25519, "access_token.previous_key_files: \(ed25519) holds no ES256 (P-256) key in PEM"),
            (folder + "/missing.pem", "access_token.previous_key_files: cannot read \(folder)/missing.pem"),
        ] {
            let error = #expect(throws: ServerConfiguration.Invalid.self) {
                _ = try AccountRouter {
                    $0.accessToken = try? JSONValue.members(["previous_key_files": .array([.string(file)])])
                        .decode(ServerConfiguration.AccessTokenSettings.self)
                }
            }
            #expect(error?.description == message)
        }
    }
}
