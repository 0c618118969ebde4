import AuthlogClient
import AuthlogCore
import AuthlogCrypto
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// Each provider's sign-in through the client against a real `authlog serve` with fake providers.
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct ClientSigninTests {
        @Test func devSigninStoresTheTokensAndRefreshRotatesThem() async throws {
            try await ClientTestServer.run { server in
                let store = InMemoryTokenStore()
                let client = AuthlogClient(baseURL: server.baseURL, tokenStore: store)
                var events = client.sessionEvents().makeAsyncIterator()
                #expect(await events.next() == .initialSession(nil), "a new listener first gets the state: signed out")
                let result = try await client.signIn(with: .dev(subject: "alice"))
                #expect(result.isNewUser)
                #expect(!result.eventIDs.isEmpty)
                #expect(await store.load() == result.tokens)
                #expect(result.tokens.provider == "dev")
                #expect(result.tokens.accessTokenExpiresAt > Date().addingTimeInterval(60))
                #expect(
                    await events.next() == .signedIn(userID: result.tokens.userID, sessionID: result.tokens.sessionID)
                )

                let refreshed = try await client.refresh()
                #expect(refreshed.refreshToken != result.tokens.refreshToken)
                #expect(refreshed.sessionID == result.tokens.sessionID)
                #expect(refreshed.provider == "dev")
                #expect(await store.load() == refreshed)
                #expect(await events.next() == .refreshed(sessionID: refreshed.sessionID))

                let again = try await AuthlogClient(baseURL: server.baseURL).signIn(with: .dev(subject: "alice"))
                #expect(!again.isNewUser)
                #expect(again.tokens.userID == result.tokens.userID)
            }
        }

        @Test func appleSigninSendsTheRawNonceTheCodeAndTheFirstTimeName() async throws {
            try await ClientTestServer.run { server in
                let proofs = ProofFactory(server: server)
                let nonce = try AppleNonce.make()
                #expect(nonce.hashed == Hex.encode(SHA256.hash(Array(nonce.rawValue.utf8))))
                let (identityToken, code) = try proofs.apple(nonce: nonce)
                let client = AuthlogClient(baseURL: server.baseURL)
                let result = try await client.signIn(
                    with: .apple(
                        identityToken: identityToken,
                        nonce: nonce,
                        authorizationCode: code,
                        user: AppleUserName(givenName: "Ada", familyName: "Lovelace")
                    )
                )
                #expect(result.isNewUser)
                #expect(result.tokens.provider == "apple")

                // A nonce the token was not made for is refused with authlog's code.
                let (otherToken, _) = try proofs.apple(nonce: nonce)
                await #expect(throws: AuthlogClientError.self) {
                    try await client.signIn(with: .apple(identityToken: otherToken, nonce: try AppleNonce.make()))
                }
                do {
                    try await client.signIn(with: .apple(identityToken: otherToken, nonce: try AppleNonce.make()))
                } catch let error as AuthlogClientError {
                    #expect(error.code == AuthlogClientError.Code(rawValue: "nonce_mismatch"))
                    #expect(error.status == 401)
                }
            }
        }

        @Test func googleSigninWithANonceAuthlogIssued() async throws {
            try await ClientTestServer.run { server in
                let client = AuthlogClient(baseURL: server.baseURL)
                let nonce = try await client.requestNonce()
                #expect(nonce.expiresAt > Date())
                let token = try ProofFactory(server: server).google(rawNonce: nonce.rawValue)
                let result = try await client.signIn(with: .google(idToken: token, rawNonce: nonce.rawValue))
                #expect(result.tokens.provider == "google")
                // The nonce is single use.
                let replay = try ProofFactory(server: server).google(rawNonce: nonce.rawValue)
                await #expect(throws: AuthlogClientError.self) {
                    try await client.signIn(with: .google(idToken: replay, rawNonce: nonce.rawValue))
                }
            }
        }

        @Test func firebaseAndKakaoIDTokens() async throws {
            try await ClientTestServer.run { server in
                let proofs = ProofFactory(server: server)
                let client = AuthlogClient(baseURL: server.baseURL)
                let firebase = try await client.signIn(with: .firebase(idToken: try proofs.firebase()))
                #expect(firebase.tokens.provider == "firebase")
                let raw = try AppleNonce.make().rawValue
                let kakao = try await client.signIn(
                    with: .kakao(idToken: try proofs.kakao(rawNonce: raw), rawNonce: raw)
                )
                #expect(kakao.tokens.provider == "kakao")
                #expect(kakao.tokens.userID != firebase.tokens.userID)
                #expect(try await client.currentTokens() == kakao.tokens, "the newest sign-in replaces the tokens")
            }
        }

        @Test func githubAndGitLabCodesWithPKCE() async throws {
            try await ClientTestServer.run { server in
                let proofs = ProofFactory(server: server)
                let pkce = try PKCE.make()
                #expect(pkce.verifier.count == 43)
                #expect(pkce.challenge == Base64URL.encode(SHA256.hash(Array(pkce.verifier.utf8))))
                #expect(pkce.method == "S256")
                let client = AuthlogClient(baseURL: server.baseURL)
                let github = try await client.signIn(with: .github(code: proofs.githubCode(), pkce: pkce))
                #expect(github.tokens.provider == "github")
                let gitlab = try await client.signIn(
                    with: .gitlab(
                        code: proofs.gitlabCode(),
                        pkce: try PKCE.make(),
                        redirectURI: "com.example.app:/oauth"
                    )
                )
                #expect(gitlab.tokens.provider == "gitlab")
            }
        }
    }
}
