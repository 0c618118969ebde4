import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogTesting
import Foundation
import Testing

extension Checkers {
    /// A resource server's view of authlog, through Python's `authlib` and `joserfc`: it finds the issuer and
    /// the JWKS through the discovery metadata and verifies authlog's access tokens with them, before and after
    /// the access-token key is rotated on a restarted `authlog serve`. The session started before the rotation
    /// goes on: its old access token is still accepted, and its refresh gives a token of the new key.
    @Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
    struct DiscoveryInteropTests {
        static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../AuthlogCryptoTests/Python/discoverycheck.py").standardizedFileURL.path

        /// What the Python check printed, or its failure.
        static func check(_ server: ServeProcess, tokens: [String]) async throws -> JSONValue {
            let request = JSONValue.object([
                ("base_url", .string(server.baseURL)), ("tokens", .array(tokens.map(JSONValue.string))),
            ])
            let output = try await ChildProcess.run(
                "/usr/bin/env",
                ["python3", Self.script],
                input: Data(request.canonicalText.utf8)
            )
            guard output.status == 0 else {
                Issue.record("discoverycheck.py: \(output.stdout) \(output.stderr)")
                return .null
            }
            return try JSONParser().parse(Array(output.stdout.utf8))
        }

        @Test func authlibAndJoserfcVerifyTokensBeforeAndAfterARotation() async throws {
            let database = try await TestDatabase.make()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-discovery-\(UUID())")
                .path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let old = try PrivateKey.generate(for: .es256)
            let new = try PrivateKey.generate(for: .es256)
            try Data(try old.pemRepresentation().utf8).write(to: URL(fileURLWithPath: folder + "/old.pem"))
            try Data(try new.pemRepresentation().utf8).write(to: URL(fileURLWithPath: folder + "/new.pem"))
            let oldID = try AccessTokenIssuer.keyID(of: old.publicKey())
            let newID = try AccessTokenIssuer.keyID(of: new.publicKey())
            func configuration(signing: String, previous: [String]) -> JSONValue {
                .members([
                    "public_url": .string("https://auth.test"),
                    "access_token": .members([
                        "signing_key_file": .string(folder + "/" + signing),
                        "previous_key_files": .array(previous.map { .string(folder + "/" + $0) }),
                    ]),
                ])
            }

            let before = try await ServeProcess.start(
                database: database,
                configuration: configuration(signing: "old.pem", previous: [])
            )
            let client = HTTPTestClient(baseURL: before.baseURL)
            let signedIn = try await client.post("/v1/signin/dev", .members(["subject": .string("alice")])).json
            let oldToken = try #require(signedIn["access_token"]?.stringValue)
            let refreshToken = try #require(signedIn["refresh_token"]?.stringValue)
            let first = try await Self.check(before, tokens: [oldToken])
            #expect(first["issuer"] == .string("https://auth.test"))
            #expect(first["jwks_kids"] == .array([.string(oldID)]))
            #expect(first["token_kids"] == .array([.string(oldID)]))
            before.stop()

            // The rotation: the new key signs, the old one is still published and accepted.
            let after = try await ServeProcess.start(
                database: database,
                configuration: configuration(signing: "new.pem", previous: ["old.pem"])
            )
            defer { after.stop() }
            let rotated = HTTPTestClient(baseURL: after.baseURL)
            let sessions = try await rotated.send(
                "GET",
                "/v1/me/sessions",
                headers: [("Authorization", "Bearer \(oldToken)")]
            )
            #expect(sessions.status == 200, "the old key's token is still accepted: \(sessions.json)")
            let refreshed = try await rotated.post(
                "/v1/token/refresh",
                .members(["refresh_token": .string(refreshToken)])
            )
            #expect(refreshed.status == 200, "the session goes on through the rotation")
            let newToken = try #require(refreshed.json["access_token"]?.stringValue)
            let second = try await Self.check(after, tokens: [oldToken, newToken])
            #expect(second["jwks_kids"] == .array([.string(newID), .string(oldID)]))
            #expect(second["token_kids"] == .array([.string(oldID), .string(newID)]))

            // Once the old key is dropped, its tokens are refused by kid.
            after.stop()
            let dropped = try await ServeProcess.start(
                database: database,
                configuration: configuration(signing: "new.pem", previous: [])
            )
            defer { dropped.stop() }
            let refused = try await HTTPTestClient(baseURL: dropped.baseURL).send(
                "GET",
                "/v1/me/sessions",
                headers: [("Authorization", "Bearer \(oldToken)")]
            )
            #expect(refused.status == 401)
        }
    }
}
