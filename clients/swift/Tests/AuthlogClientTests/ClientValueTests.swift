import AuthlogClient
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The client's values without a server: PKCE and nonces, redaction, and the file token store.
struct ClientValueTests {
    static let tokens = AuthTokens(
        userID: "0190f2a0-0000-7000-8000-000000000001",
        sessionID: "0190f2a0-0000-7000-8000-000000000002",
        accessToken: "eyJhbGciOiJFUzI1NiJ9.SECRET-ACCESS.sig",
        accessTokenExpiresAt: Date(timeIntervalSince1970: 1_800_000_000),
        refreshToken: "alr_SECRET-REFRESH",
        refreshTokenExpiresAt: Date(timeIntervalSince1970: 1_900_000_000),
        provider: "apple"
    )

    @Test func pkceMatchesRFC7636AppendixB() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(!"\(pkce)".contains(pkce.verifier))
    }

    @Test func freshNoncesAndVerifiersDiffer() throws {
        let nonces = try (0..<100).map { _ in try AppleNonce.make().rawValue }
        #expect(Set(nonces).count == 100)
        #expect(nonces.allSatisfy { $0.count == 43 })
        let nonce = try AppleNonce.make()
        #expect(nonce.hashed.count == 64 && !"\(nonce)".contains(nonce.rawValue))
    }

    @Test func noTokenInAnyDescription() throws {
        let secrets = ["SECRET-ACCESS", "SECRET-REFRESH", "SECRET-ID-TOKEN", "SECRET-CODE"]
        let result = SigninResult(tokens: Self.tokens, isNewUser: true, eventIDs: [])
        let proofs: [SigninProof] = [
            .apple(
                identityToken: "SECRET-ID-TOKEN",
                nonce: AppleNonce(rawValue: "raw"),
                authorizationCode: "SECRET-CODE",
                user: AppleUserName(givenName: "Ada")
            ),
            .google(idToken: "SECRET-ID-TOKEN"), .github(code: "SECRET-CODE", pkce: try PKCE.make()),
            .kakao(accessToken: "SECRET-ACCESS"),
        ]
        let error = AuthlogClientError(.invalidGrant, status: 401, detail: "The refresh token is not valid.")
        var texts = [
            "\(Self.tokens)", String(reflecting: Self.tokens), "\(result)", String(reflecting: result),
            "\(error)", String(reflecting: error),
        ]
        texts += proofs.flatMap { ["\($0)", String(reflecting: $0)] }
        for text in texts {
            #expect(!secrets.contains { text.contains($0) }, "\(text)")
        }
        #expect("\(Self.tokens)".contains("<redacted>"))
    }

    @Test func fileTokenStoreWritesAnOwnerOnlyFileAtomically() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authlog-tokens-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("tokens.json")
        let store = FileTokenStore(url: url)
        #expect(try await store.load() == nil)
        try await store.save(Self.tokens)
        var info = stat()
        #expect(stat(url.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try await FileTokenStore(url: url).load() == Self.tokens)
        var next = Self.tokens
        next.refreshToken = "alr_next"
        try await store.save(next)
        #expect(try await store.load() == next)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["tokens.json"], "no leftovers")
        try await store.clear()
        #expect(try await store.load() == nil)
        try await store.clear()
    }
}
