import AuthlogClient
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client's DPoP against ``DPoPTokenServer`` over real HTTP: a sign-in binds the session to the install's key and
/// every later refresh proves the same key; `use_dpop_nonce` is retried once with the server's nonce, and a second
/// one is the caller's error; ``AuthlogClient/send(_:)`` sends bound tokens as `Authorization: DPoP` with `ath`; a
/// refused proof is its own error and keeps the tokens; with DPoP off, no proof goes at all.
@Suite(.timeLimit(.minutes(1)))
struct DPoPFlowTests {
    /// A client of `server` on `store`, refreshing only when asked.
    static func client(
        _ server: DPoPTokenServer,
        _ store: any TokenStore = InMemoryTokenStore(),
        usesDPoP: Bool = true
    ) -> AuthlogClient {
        AuthlogClient(
            baseURL: server.baseURL,
            tokenStore: store,
            configuration: .init(refreshBeforeExpiry: nil, usesDPoP: usesDPoP)
        )
    }

    @Test func aSigninBindsTheSessionAndEveryRefreshProvesTheSameKey() async throws {
        let server = try DPoPTokenServer()
        let store = InMemoryTokenStore()
        let client = Self.client(server, store)
        let signedIn = try await client.signIn(with: .dev(subject: "ada"))
        #expect(signedIn.tokens.tokenType == .dpop && signedIn.tokens.isDPoPBound)
        try await client.refresh()
        let refreshed = try await client.refresh()
        #expect(refreshed.tokenType == .dpop)
        #expect(try await store.load() == refreshed, "the type is stored with the tokens")

        let thumbprint = try #require(try await client.dpopKeyThumbprint())
        #expect(server.binding(of: refreshed.refreshToken) == thumbprint, "the family is bound to the client's key")
        let signin = try #require(server.seen("/v1/signin/dev").first?.proof)
        #expect(signin.htm == "POST" && signin.htu == server.baseURL.absoluteString + "/v1/signin/dev")
        #expect(signin.ath == nil && signin.nonce == nil)
        let refreshes = server.seen("/v1/token/refresh")
        #expect(refreshes.count == 2 && refreshes.allSatisfy { $0.status == 200 && $0.proofProblem == nil })
        #expect(refreshes.map { $0.proof?.thumbprint } == [thumbprint, thumbprint])
        #expect(refreshes.allSatisfy { $0.proof?.htu == server.baseURL.absoluteString + "/v1/token/refresh" })
        #expect(refreshes.allSatisfy { $0.proof?.ath == nil && $0.authorization == nil })
        let jtis = server.seen.compactMap { $0.proof?.jti }
        #expect(jtis.count == 3 && Set(jtis).count == 3)
    }

    @Test func aUseDPoPNonceIsRetriedOnceWithTheServersNonce() async throws {
        let server = try DPoPTokenServer()
        let client = Self.client(server)
        server.refuseForNonce(1)
        try await client.signIn(with: .dev(subject: "ada"))
        let signins = server.seen("/v1/signin/dev")
        #expect(signins.map(\.status) == [400, 200], "one refusal, one retry")
        let given = try #require(signins.first?.nonceGiven)
        #expect(signins[0].proof?.nonce == nil && signins[1].proof?.nonce == given)
        #expect(signins[0].proof?.jti != signins[1].proof?.jti, "a new jti for the retry")

        // The nonce the server gave is in the next proof at once: no refusal.
        try await client.refresh()
        #expect(server.seen("/v1/token/refresh").map { $0.proof?.nonce } == [given])
        // A refresh asked for a new nonce is retried with it, once.
        server.refuseForNonce(1)
        try await client.refresh()
        let refreshes = server.seen("/v1/token/refresh")
        #expect(refreshes.map(\.status) == [200, 400, 200])
        let newer = try #require(refreshes[1].nonceGiven)
        #expect(newer != given && refreshes[2].proof?.nonce == newer)
    }

    @Test func aSecondUseDPoPNonceIsTheCallersError() async throws {
        let server = try DPoPTokenServer()
        let store = InMemoryTokenStore()
        let client = Self.client(server, store)
        server.refuseForNonce(2)
        do {
            try await client.signIn(with: .dev(subject: "ada"))
            Issue.record("a sign-in asked twice for a nonce succeeded")
        } catch let error as AuthlogClientError {
            #expect(error.code == .useDPoPNonce && error.status == 400 && error.dpopReason == .staleNonce)
        }
        #expect(server.seen("/v1/signin/dev").map(\.status) == [400, 400], "two tries, no more")
        #expect(try await client.currentTokens() == nil)

        let signedIn = try await client.signIn(with: .dev(subject: "ada"))
        server.refuseForNonce(2)
        await #expect(
            throws: AuthlogClientError(
                .useDPoPNonce,
                status: 400,
                detail: "refused: dpop_nonce_stale",
                dpopReason: .staleNonce
            )
        ) {
            try await client.refresh()
        }
        #expect(server.seen("/v1/token/refresh").map(\.status) == [400, 400])
        #expect(try await store.load() == signedIn.tokens, "a refused proof ends nothing: the tokens stay")
    }

    @Test func sendProvesBoundTokensWithTheirHashAndTheDPoPScheme() async throws {
        let server = try DPoPTokenServer()
        let client = Self.client(server)
        let tokens = try await client.signIn(with: .dev(subject: "ada")).tokens
        let url = try #require(URL(string: server.resourceURL.absoluteString + "?page=2#top"))
        let (_, response) = try await client.send(URLRequest(url: url))
        #expect(response.statusCode == 200)
        let request = try #require(server.seen("/resource").first)
        #expect(request.authorization == "DPoP \(tokens.accessToken)")
        let proof = try #require(request.proof)
        #expect(proof.ath == DPoPProofCheck.ath(tokens.accessToken))
        #expect(proof.htm == "GET" && proof.htu == server.resourceURL.absoluteString, "no query, no fragment")
        #expect(proof.thumbprint == (try await client.dpopKeyThumbprint()))

        // A resource server's `WWW-Authenticate: DPoP error="use_dpop_nonce"` is retried once with its nonce,
        // without a refresh.
        server.refuseForNonce(1)
        #expect(try await client.send(URLRequest(url: url)).1.statusCode == 200)
        let sent = server.seen("/resource")
        #expect(sent.map(\.status) == [200, 401, 200])
        #expect(sent[2].proof?.nonce == sent[1].nonceGiven && sent[2].proof?.nonce != nil)
        #expect(Set(sent.compactMap { $0.proof?.jti }).count == 3)
        // A second one is the answer the caller gets, and still no refresh.
        server.refuseForNonce(2)
        #expect(try await client.send(URLRequest(url: url)).1.statusCode == 401)
        #expect(server.seen("/resource").count == 5)
        #expect(server.seen("/v1/token/refresh").isEmpty)

        // The logout carries the token the same way.
        try await client.logout()
        let logout = try #require(server.seen("/v1/logout").first)
        #expect(logout.status == 204 && logout.authorization == "DPoP \(tokens.accessToken)")
        #expect(logout.proof?.ath == DPoPProofCheck.ath(tokens.accessToken))
    }

    /// Tokens kept with one key and proved with another (a copy of another install's tokens, or an install whose
    /// key was replaced): authlog refuses the refresh with `dpop_wrong_key` and ends nothing, but this store's copy
    /// can never refresh again, so the session ends on this device: signed out, the store cleared, the app told.
    @Test func aProofOfAnotherKeyIsRefusedWithItsReasonAndEndsTheSessionHere() async throws {
        let server = try DPoPTokenServer()
        let tokens = try await Self.client(server).signIn(with: .dev(subject: "ada")).tokens
        let otherStore = InMemoryTokenStore(tokens)
        let other = Self.client(server, otherStore)
        var events = other.sessionEvents().makeAsyncIterator()
        #expect(await events.next() == .initialSession(tokens.identity))
        do {
            try await other.refresh()
            Issue.record("a proof of another key was accepted")
        } catch let error as AuthlogClientError {
            #expect(error.isSignedOut && error.status == 401)
        }
        #expect(await otherStore.load() == nil)
        #expect(await events.next() == .signedOut(.sessionEnded))
        #expect(server.seen("/v1/token/refresh").map(\.status) == [401])
    }

    /// A device whose clock is minutes off makes proofs the server refuses for their `iat`; the first answer's
    /// `Date` shows by how much, so the refused proof is made again by the server's clock, once, and every later
    /// proof to that server is made by it at once. A clock off by less than the `Date` can tell is left alone.
    @Test(arguments: [-300.0, 600.0])
    func aDeviceClockMinutesOffIsCorrectedByTheServersDate(serverAhead: TimeInterval) async throws {
        let server = try DPoPTokenServer()
        server.setClock(offset: serverAhead)
        let client = Self.client(server)
        try await client.signIn(with: .dev(subject: "ada"))
        let signins = server.seen("/v1/signin/dev")
        #expect(signins.map(\.status) == [401, 200], "one refusal for the iat, one retry by the server's clock")
        #expect(signins.first?.proofProblem == (serverAhead > 0 ? "dpop_iat_stale" : "dpop_iat_future"))
        let corrected = try #require(signins.last?.proof?.iat)
        let serverNow = Date().addingTimeInterval(serverAhead).timeIntervalSince1970
        #expect(abs(Double(corrected) - serverNow) < 5, "the retry's iat is the server's time")
        try await client.refresh()
        #expect(server.seen("/v1/token/refresh").map(\.status) == [200], "later proofs need no retry")
        let tokens = try #require(try await client.currentTokens())
        let access = try await client.send(URLRequest(url: server.resourceURL))
        #expect(access.1.statusCode == 200 && tokens.isDPoPBound)
    }

    @Test func aClockOffByLessThanTheThresholdIsLeftAlone() async throws {
        let server = try DPoPTokenServer()
        server.setClock(offset: 2)
        let client = Self.client(server)
        try await client.signIn(with: .dev(subject: "ada"))
        try await client.refresh()
        let proofs = server.seen.compactMap { $0.proof?.iat }
        let now = Date().timeIntervalSince1970
        #expect(proofs.count == 2 && proofs.allSatisfy { abs(Double($0) - now) < 3 }, "the device's own clock")
    }

    @Test func withDPoPOffNoProofIsSentAndTheTokensAreBearer() async throws {
        let server = try DPoPTokenServer()
        let file = try DeviceIDTests.tokenFile()
        let store = FileTokenStore(url: file)
        let client = Self.client(server, store, usesDPoP: false)
        let tokens = try await client.signIn(with: .dev(subject: "ada")).tokens
        #expect(tokens.tokenType == .bearer)
        let refreshed = try await client.refresh()
        #expect(try await client.send(URLRequest(url: server.resourceURL)).1.statusCode == 200)
        try await client.logout()
        #expect(server.seen.map(\.path) == ["/v1/signin/dev", "/v1/token/refresh", "/resource", "/v1/logout"])
        #expect(server.seen.allSatisfy { $0.dpop == nil && ($0.status == 200 || $0.status == 204) })
        #expect(server.seen("/resource").first?.authorization == "Bearer \(refreshed.accessToken)")
        #expect(try await client.dpopKeyThumbprint() == nil)
        #expect(!FileManager.default.fileExists(atPath: store.dpopKeyURL.path), "no key was made")
    }

    /// A store that cannot give the key now: a sign-in (which binds) and a refresh of bound tokens fail before
    /// anything is sent; a refresh of Bearer tokens goes without a proof.
    @Test func aKeyThatCannotBeHadFailsOnlyWhatNeedsIt() async throws {
        let server = try DPoPTokenServer()
        let refusal = AuthlogClientError(.tokenStore, detail: "errSecInteractionNotAllowed")
        await #expect(throws: refusal) {
            try await Self.client(server, KeyFailingStore()).signIn(with: .dev(subject: "ada"))
        }
        #expect(server.seen.isEmpty)

        let bearer = try await Self.client(server, usesDPoP: false).signIn(with: .dev(subject: "ada")).tokens
        let refreshed = try await Self.client(server, KeyFailingStore(bearer)).refresh()
        #expect(refreshed.tokenType == .bearer)
        #expect(server.seen("/v1/token/refresh").map(\.dpop) == [nil])

        let bound = try await Self.client(server).signIn(with: .dev(subject: "ada")).tokens
        let store = KeyFailingStore(bound)
        await #expect(throws: refusal) { try await Self.client(server, store).refresh() }
        #expect(server.seen("/v1/token/refresh").count == 1, "nothing sent")
        #expect(await store.load() == bound)
    }

    /// A token store of one's own that keeps no key: the client signs in without a proof, to Bearer tokens.
    @Test func aStoreThatKeepsNoKeyGetsBearerTokens() async throws {
        let server = try DPoPTokenServer()
        let client = Self.client(server, KeylessStore())
        #expect(try await client.signIn(with: .dev(subject: "ada")).tokens.tokenType == .bearer)
        try await client.refresh()
        #expect(server.seen.count == 2 && server.seen.allSatisfy { $0.dpop == nil && $0.status == 200 })
        #expect(try await client.dpopKeyThumbprint() == nil)
    }
}

/// A store of one's own whose DPoP key cannot be had now (a Keychain error, say), over an in-memory store.
private actor KeyFailingStore: TokenStore {
    let inner: InMemoryTokenStore

    init(_ tokens: AuthTokens? = nil) {
        self.inner = InMemoryTokenStore(tokens)
    }

    func load() async -> AuthTokens? { await self.inner.load() }
    func save(_ tokens: AuthTokens) async { await self.inner.save(tokens) }
    func clear() async { await self.inner.clear() }

    func loadOrCreateDPoPKey(
        replacing unusable: StoredDPoPKey?,
        make: @Sendable () throws -> StoredDPoPKey
    ) throws -> StoredDPoPKey? {
        throw AuthlogClientError(.tokenStore, detail: "errSecInteractionNotAllowed")
    }
}

/// A store of one's own that implements only the tokens: the protocol's default keeps no DPoP key.
private actor KeylessStore: TokenStore {
    private var tokens: AuthTokens?

    func load() -> AuthTokens? { self.tokens }
    func save(_ tokens: AuthTokens) { self.tokens = tokens }
    func clear() { self.tokens = nil }
}
