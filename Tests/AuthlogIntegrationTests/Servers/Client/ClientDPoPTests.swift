@_spi(Testing) import AuthlogClient
import AuthlogCore
import AuthlogCrypto
import AuthlogTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Servers {
    /// AuthlogClient's DPoP (RFC 9449) against real `authlog serve` processes: the install's key binds the session,
    /// every later call proves it, server nonces cost one retry, and a proof's `jti` is accepted once across two
    /// processes of one database.
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct ClientDPoPTests {
        @Test func theInstallsKeyBindsTheSessionAndEveryCallProvesIt() async throws {
            try await ClientTestServer.run { server in
                let transport = CountingTransport()
                let store = InMemoryTokenStore()
                let client = AuthlogClient(baseURL: server.baseURL, tokenStore: store, transport: transport)
                let signedIn = try await client.signIn(with: .dev(subject: "dora"))
                #expect(signedIn.tokens.tokenType == .dpop)
                let thumbprint = try #require(try await client.dpopKeyThumbprint())
                let refreshed = try await client.refresh()
                #expect(refreshed.tokenType == .dpop)
                let (_, answer) = try await client.send(ClientRequests.receipt(server, eventID: signedIn.eventIDs[0]))
                #expect(answer.statusCode != 401)
                try await client.logout()
                let paths = transport.requests.map(\.path)
                #expect(paths.first == "/v1/signin/dev" && paths.contains("/v1/token/refresh"))
                #expect(transport.requests.allSatisfy { $0.dpop != nil }, "every call carried a proof")
                #expect(transport.requests.filter { $0.scheme != nil }.allSatisfy { $0.scheme == "DPoP" })
                // The log names the key: the sign-in's token.issued and the refresh's token.refreshed.
                let connection = try await server.database.connect()
                let recorded = try await connection.query(
                    """
                    SELECT type, data->>'dpop_jkt' FROM authlog.events
                    WHERE type IN ('token.issued', 'token.refreshed') ORDER BY position
                    """
                ).rows.map { (try $0.decode(String.self, at: 0), try $0.decode(String?.self, at: 1)) }
                #expect(recorded.map(\.0) == ["token.issued", "token.refreshed"])
                #expect(recorded.allSatisfy { $0.1 == thumbprint })
            }
        }

        @Test func serverNoncesCostOneRetry() async throws {
            try await ClientTestServer.run(extra: ["dpop": .members(["nonces": .bool(true)])]) { server in
                let transport = CountingTransport()
                let store = InMemoryTokenStore()
                let client = AuthlogClient(baseURL: server.baseURL, tokenStore: store, transport: transport)
                _ = try await client.signIn(with: .dev(subject: "nina"))
                _ = try await client.refresh()
                // The first sign-in is asked for the nonce and sent again once; the refresh uses the nonce it got.
                #expect(transport.requests.map(\.status) == [400, 200, 200])
                #expect(transport.requests.map(\.path) == ["/v1/signin/dev", "/v1/signin/dev", "/v1/token/refresh"])
            }
        }

        /// The thief's case under the default configuration (rate limits on, `optional`, grace window 10 s): the
        /// spent token replayed without the key and the current one with another key are refused with their
        /// reasons, and the user's next refresh goes through.
        @Test func aThiefWithoutTheKeyEndsNothingUnderTheDefaults() async throws {
            try await ClientTestServer.run { server in
                let base = server.baseURL.absoluteString
                let client = HTTPTestClient(baseURL: base)
                let device = try DPoPProofMaker()
                let thief = try DPoPProofMaker()
                let signin = try await client.post(
                    "/v1/signin/dev",
                    .members(["subject": .string("tess")]),
                    headers: [("DPoP", try device.proof(url: base + "/v1/signin/dev"))]
                )
                let stolen = try #require(signin.json["refresh_token"]?.stringValue)
                func refresh(_ token: String, _ key: DPoPProofMaker?) async throws -> HTTPTestClient.Answer {
                    try await client.post(
                        "/v1/token/refresh",
                        .members(["refresh_token": .string(token)]),
                        headers: try key.map { [("DPoP", try $0.proof(url: base + "/v1/token/refresh"))] } ?? []
                    )
                }
                let rotated = try await refresh(stolen, device)
                #expect(rotated.status == 200)
                let current = try #require(rotated.json["refresh_token"]?.stringValue)
                let bare = try await refresh(stolen, nil)
                #expect(bare.status == 401 && bare.json["reason"]?.stringValue == "dpop_missing")
                let other = try await refresh(current, thief)
                #expect(other.status == 401 && other.json["reason"]?.stringValue == "dpop_wrong_key")
                #expect(try await refresh(current, device).status == 200)
            }
        }

        /// A proof accepted by one process is refused by the other: the `jti` ledger is the database's.
        @Test func aProofReplayedToASecondServeProcessIsRefused() async throws {
            let shared: [String: JSONValue] = [
                "public_url": .string("https://auth.example.com"),
                "data_key": .string(Base64URL.encode(try SecureRandom.bytes(count: 32))),
            ]
            try await ClientTestServer.run(extra: shared) { first in
                let second = try await ClientTestServer.start(
                    extra: shared,
                    database: first.database,
                    fake: first.fake
                )
                do {
                    let device = try DPoPProofMaker()
                    let one = HTTPTestClient(baseURL: first.baseURL.absoluteString)
                    let two = HTTPTestClient(baseURL: second.baseURL.absoluteString)
                    let signin = try await one.post(
                        "/v1/signin/dev",
                        .members(["subject": .string("rita")]),
                        headers: [("DPoP", try device.proof(url: "https://auth.example.com/v1/signin/dev"))]
                    )
                    #expect(signin.status == 200)
                    let proof = try device.proof(url: "https://auth.example.com/v1/token/refresh")
                    let refreshed = try await one.post(
                        "/v1/token/refresh",
                        .members(["refresh_token": .string(try #require(signin.json["refresh_token"]?.stringValue))]),
                        headers: [("DPoP", proof)]
                    )
                    #expect(refreshed.status == 200)
                    let next = try #require(refreshed.json["refresh_token"]?.stringValue)
                    let replayed = try await two.post(
                        "/v1/token/refresh",
                        .members(["refresh_token": .string(next)]),
                        headers: [("DPoP", proof)]
                    )
                    #expect(replayed.status == 401)
                    #expect(replayed.json["reason"]?.stringValue == "dpop_replayed")
                    // The same token with a fresh proof goes through at the second process.
                    let fresh = try device.proof(url: "https://auth.example.com/v1/token/refresh")
                    let answer = try await two.post(
                        "/v1/token/refresh",
                        .members(["refresh_token": .string(next)]),
                        headers: [("DPoP", fresh)]
                    )
                    #expect(answer.status == 200)
                } catch {
                    await second.stop()
                    throw error
                }
                await second.stop()
            }
        }
    }
}
