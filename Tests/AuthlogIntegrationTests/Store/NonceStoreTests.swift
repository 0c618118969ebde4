import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Testing

/// Single-use nonces: per provider, issued ones expire, and old ones are purged.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct NonceStoreTests {
    @Test func aNonceIsAcceptedOncePerProviderAndIssuedOnesExpire() async throws {
        let database = try await TestDatabase.make()
        let nonces = NonceStore(pool: ConnectionPool(conninfo: database.conninfo))
        let now = Timestamp.now()
        let deviceNonce = SHA256.hash(Array("made-on-the-device".utf8))
        #expect(try await nonces.consume(provider: "apple", hash: deviceNonce, at: now) == .accepted)
        #expect(try await nonces.consume(provider: "apple", hash: deviceNonce, at: now) == .replayed)
        #expect(try await nonces.consume(provider: "google", hash: deviceNonce, at: now) == .accepted)

        let issued = SHA256.hash(Array("issued-by-authlog".utf8))
        try await nonces.recordIssued(hash: issued, at: now, expiresAt: now.adding(seconds: 600))
        #expect(try await nonces.consume(provider: "apple", hash: issued, at: now.adding(seconds: 601)) == .expired)
        #expect(try await nonces.consume(provider: "kakao", hash: issued, at: now.adding(seconds: 599)) == .accepted)
    }

    @Test func purgeForgetsOnlyNoncesOlderThanTheCutoff() async throws {
        let database = try await TestDatabase.make()
        let nonces = NonceStore(pool: ConnectionPool(conninfo: database.conninfo))
        let now = Timestamp.now()
        let old = SHA256.hash(Array("old".utf8))
        let recent = SHA256.hash(Array("recent".utf8))
        #expect(try await nonces.consume(provider: "apple", hash: old, at: now.adding(seconds: -90_000)) == .accepted)
        #expect(try await nonces.consume(provider: "apple", hash: recent, at: now.adding(seconds: -60)) == .accepted)
        #expect(try await nonces.purge(before: now.adding(seconds: -86_400)) == 1)
        #expect(try await nonces.consume(provider: "apple", hash: recent, at: now) == .replayed)
        #expect(try await nonces.consume(provider: "apple", hash: old, at: now) == .accepted)
    }
}
