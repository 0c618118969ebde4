import AuthlogClient
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// The client's errors from a real server and from a closed port hold no token (its values without a server
    /// are tested in the client package, clients/swift/Tests/AuthlogClientTests).
    struct ClientErrorTests {
        static let tokens = AuthTokens(
            userID: "0190f2a0-0000-7000-8000-000000000001",
            sessionID: "0190f2a0-0000-7000-8000-000000000002",
            accessToken: "eyJhbGciOiJFUzI1NiJ9.SECRET-ACCESS.sig",
            accessTokenExpiresAt: Date(timeIntervalSince1970: 1_800_000_000),
            refreshToken: "alr_SECRET-REFRESH",
            refreshTokenExpiresAt: Date(timeIntervalSince1970: 1_900_000_000),
            provider: "apple"
        )

        @Test func errorsFromARealServerAndADeadPortShowNoToken() async throws {
            let dead = AuthlogClient(
                baseURL: try #require(URL(string: "http://127.0.0.1:9")),
                tokenStore: InMemoryTokenStore(Self.tokens)
            )
            do {
                try await dead.refresh()
                Issue.record("refreshed through a closed port")
            } catch {
                #expect((error as? AuthlogClientError)?.code == .transport)
                for text in ["\(error)", String(reflecting: error), error.localizedDescription] {
                    #expect(!text.contains("SECRET"), "\(text)")
                }
            }
            guard TestDatabase.isAvailable else { return }
            try await ClientTestServer.run { server in
                let client = AuthlogClient(baseURL: server.baseURL, tokenStore: InMemoryTokenStore(Self.tokens))
                do {
                    _ = try await client.send(ClientRequests.receipt(server, eventID: UUID().uuidString.lowercased()))
                    Issue.record("a forged token was accepted")
                } catch {
                    #expect((error as? AuthlogClientError)?.isSignedOut == true)
                    for text in ["\(error)", String(reflecting: error), error.localizedDescription] {
                        #expect(!text.contains("SECRET"), "\(text)")
                    }
                }
            }
        }
    }
}
