import AuthlogClient
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// Logout, re-authentication, linking, credential state and deletion through the client, and sessions that
    /// authlog ended surfacing as signed out.
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct ClientAccountTests {
        @Test func logoutThisSessionClearsTheTokensAndKillsThem() async throws {
            try await ClientTestServer.run { server in
                let store = InMemoryTokenStore()
                let client = AuthlogClient(baseURL: server.baseURL, tokenStore: store)
                let signedIn = try await client.signIn(with: .dev(subject: "bob"))
                var events = client.sessionEvents().makeAsyncIterator()
                #expect(await events.next() == .initialSession(signedIn.tokens.identity))
                try await client.logout()
                #expect(await store.load() == nil)
                #expect(await events.next() == .signedOut(.loggedOut))
                await #expect(throws: AuthlogClientError(.signedOut, detail: "There is no session: sign in first.")) {
                    _ = try await client.send(ClientRequests.receipt(server, eventID: signedIn.eventIDs[0]))
                }
                // The old refresh token is dead at authlog too.
                let stale = AuthlogClient(baseURL: server.baseURL, tokenStore: InMemoryTokenStore(signedIn.tokens))
                await #expect(throws: AuthlogClientError.self) { try await stale.refresh() }
                #expect(try await stale.currentTokens() == nil, "the refused refresh cleared the stale copy")
            }
        }

        @Test func logoutAllFromAnotherDeviceSignsThisOneOut() async throws {
            try await ClientTestServer.run { server in
                let phone = AuthlogClient(baseURL: server.baseURL)
                let tablet = AuthlogClient(baseURL: server.baseURL)
                let signedIn = try await phone.signIn(with: .dev(subject: "carol"))
                try await tablet.signIn(with: .dev(subject: "carol"))
                var events = phone.sessionEvents().makeAsyncIterator()
                #expect(await events.next() == .initialSession(signedIn.tokens.identity))
                try await tablet.logout(.allSessions)
                do {
                    _ = try await phone.send(ClientRequests.receipt(server, eventID: signedIn.eventIDs[0]))
                    Issue.record("the revoked session was not noticed")
                } catch let error as AuthlogClientError {
                    #expect(error.isSignedOut)
                }
                #expect(try await phone.currentTokens() == nil)
                #expect(await events.next() == .signedOut(.sessionEnded))
            }
        }

        @Test func reauthenticateLinkAndUnlink() async throws {
            try await ClientTestServer.run { server in
                let proofs = ProofFactory(server: server)
                let client = AuthlogClient(baseURL: server.baseURL)
                let signedIn = try await client.signIn(with: .dev(subject: "dave"))
                let at = try await client.reauthenticate(with: .dev(subject: "dave"))
                #expect(abs(at.timeIntervalSinceNow) < 60)
                do {
                    try await client.reauthenticate(with: .dev(subject: "someone-else"))
                    Issue.record("another user's identity re-authenticated")
                } catch let error as AuthlogClientError {
                    #expect(error.code.rawValue == "identity_mismatch" && error.status == 403)
                }

                let raw = try AppleNonce.make().rawValue
                try await client.link(
                    .google(idToken: try proofs.google(subject: "dave-google", rawNonce: raw), rawNonce: raw)
                )
                let other = AuthlogClient(baseURL: server.baseURL)
                let raw2 = try AppleNonce.make().rawValue
                let viaGoogle = try await other.signIn(
                    with: .google(idToken: try proofs.google(subject: "dave-google", rawNonce: raw2), rawNonce: raw2)
                )
                #expect(
                    viaGoogle.tokens.userID == signedIn.tokens.userID,
                    "the linked identity signs in as the same user"
                )

                try await client.unlink(provider: "google")
                do {
                    try await client.unlink(provider: "google")
                    Issue.record("unlinked twice")
                } catch let error as AuthlogClientError {
                    #expect(error.code.rawValue == "identity_not_linked" && error.status == 404)
                }
            }
        }

        @Test func revokedAppleCredentialStateSignsTheAppleSessionOut() async throws {
            try await ClientTestServer.run { server in
                let nonce = try AppleNonce.make()
                let (token, _) = try ProofFactory(server: server).apple(nonce: nonce)
                let store = InMemoryTokenStore()
                let client = AuthlogClient(baseURL: server.baseURL, tokenStore: store)
                let signedIn = try await client.signIn(with: .apple(identityToken: token, nonce: nonce))
                try await client.reportCredentialState(.authorized)
                #expect(await store.load() != nil, "authorized changes nothing")
                var events = client.sessionEvents().makeAsyncIterator()
                #expect(await events.next() == .initialSession(signedIn.tokens.identity))
                try await client.reportCredentialState(.revoked)
                #expect(await store.load() == nil)
                #expect(await events.next() == .signedOut(.credentialRevoked))
                let stale = AuthlogClient(baseURL: server.baseURL, tokenStore: InMemoryTokenStore(signedIn.tokens))
                await #expect(throws: AuthlogClientError.self) { try await stale.refresh() }
            }
        }

        @Test func deletingTheAccountRevokesAtAppleAndSignsOut() async throws {
            try await ClientTestServer.run { server in
                let nonce = try AppleNonce.make()
                let (token, code) = try ProofFactory(server: server).apple(nonce: nonce)
                let store = InMemoryTokenStore()
                let client = AuthlogClient(baseURL: server.baseURL, tokenStore: store)
                let signedIn = try await client.signIn(
                    with: .apple(
                        identityToken: token,
                        nonce: nonce,
                        authorizationCode: code,
                        user: AppleUserName(givenName: "Eve")
                    )
                )
                var events = client.sessionEvents().makeAsyncIterator()
                #expect(await events.next() == .initialSession(signedIn.tokens.identity))
                let deletion = try await client.deleteAccount()
                #expect(deletion.providerRevocations == ["apple": "revoked"])
                #expect(server.fake.calls(to: "/auth/revoke").count == 1)
                #expect(await store.load() == nil)
                #expect(await events.next() == .signedOut(.accountDeleted))
            }
        }
    }
}
