import AuthlogCore
import AuthlogCrypto
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// The identity lockout over HTTP on PostgreSQL: Google sign-ins lock after three expired proofs, the locked
/// answer is byte for byte the forged-proof answer, and `POST /v1/admin/identities/unlock` lifts it.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct IdentityLockoutRouteTests {
    static func lockAfterThree(_ configuration: inout ServerConfiguration) {
        configuration.rateLimits = try? JSONValue.members([
            "lockout": .members(["failures": .number("3"), "window_seconds": .number("600")])
        ]).decode(ServerConfiguration.RateLimitSettings.self)
    }

    /// A Google ID token of `victim-1` (ten minutes long), signed with `key` (else Google's): valid now, or
    /// expired `expiredFor` seconds ago.
    static func googleToken(
        _ harness: ServerHarness,
        expiredFor: Int64? = nil,
        key: PrivateKey? = nil
    ) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let claims = FakeIdentityProvider.claims(
            issuer: "https://accounts.google.com",
            audience: .string(Fixture.googleClient),
            subject: "victim-1",
            issuedAt: now - 600 - (expiredFor ?? -600),
            lifetime: 600
        )
        return try harness.providers.google.sign(claims, key: key)
    }

    static func signIn(_ harness: ServerHarness, _ token: String) async throws -> HTTPTestClient.Answer {
        try await harness.post("/v1/signin/google", .members(["id_token": .string(token)]))
    }

    static func unlock(
        _ harness: ServerHarness,
        key: String?,
        body: [UInt8],
        contentType: String = "application/json"
    ) async throws -> HTTPTestClient.Answer {
        var headers = ServerHarness.appHeaders + [("Content-Type", contentType)]
        if let key { headers.append(("Authorization", "Bearer \(key)")) }
        return try await harness.client.send("POST", "/v1/admin/identities/unlock", body: body, headers: headers)
    }

    /// Under the default configuration (ten failures in fifteen minutes), a genuine Google ID token that expired
    /// a day ago, replayed ten times, locks nobody: it is recorded as `expired` without a subject hash, like a
    /// forged proof. Ten replays of one that expired within its lifetime lock the identity.
    @Test func tenReplaysOfADayOldGoogleTokenDoNotLockTheUserButTenRecentOnesDo() async throws {
        try await ServerHarness.run(adjust: ServerHarness.defaultLimits) { harness in
            let stale = try Self.googleToken(harness, expiredFor: 86_400)
            for _ in 0..<10 {
                let answer = try await Self.signIn(harness, stale)
                #expect(answer.status == 401 && answer.string("error") == "expired")
            }
            #expect(try await harness.events(ofType: "identity.locked").isEmpty)
            let replays = try await harness.events(ofType: "signin.failed")
            #expect(replays.count == 10)
            #expect(replays.allSatisfy { $0.reason == "expired" && $0.data["subject_hash"] == nil })
            #expect(try await Self.signIn(harness, try Self.googleToken(harness)).status == 200, "not locked")

            let recent = try Self.googleToken(harness, expiredFor: 100)
            for _ in 0..<10 {
                let answer = try await Self.signIn(harness, recent)
                #expect(answer.status == 401 && answer.string("error") == "expired")
            }
            let counted = try await harness.events(ofType: "signin.failed").dropFirst(10)
            #expect(counted.count == 10 && counted.allSatisfy { $0.data["subject_hash"] != nil })
            let locks = try await harness.events(ofType: "identity.locked")
            #expect(locks.count == 1 && locks.first?.data["failures"] == .number("10"))
            let locked = try await Self.signIn(harness, try Self.googleToken(harness))
            #expect(locked.status == 401 && locked.string("error") == "invalid_signature")
        }
    }

    @Test func aLockedGoogleIdentityIsAnsweredAsAForgedProofUntilAnAdminUnlocksIt() async throws {
        try await ServerHarness.run(adjust: Self.lockAfterThree) { harness in
            let keys = APIKeyStore(pool: harness.components.store.pool)
            let admin = try await keys.create(name: "ops-admin", scope: .admin)
            let audit = try await keys.create(name: "ops-audit", scope: .audit)
            for _ in 0..<3 {
                let expired = try await Self.signIn(harness, try Self.googleToken(harness, expiredFor: 100))
                #expect(expired.status == 401 && expired.string("error") == "expired")
            }
            let locks = try await harness.events(ofType: "identity.locked")
            #expect(locks.count == 1)
            let subjectHash = try #require(locks.first?.data["subject_hash"]?.stringValue)
            #expect(locks.first?.reason == "too_many_failures")

            let locked = try await Self.signIn(harness, try Self.googleToken(harness))
            let forged = try await Self.signIn(
                harness,
                try Self.googleToken(harness, key: try PrivateKey.generate(for: .rs256))
            )
            #expect(locked.status == 401 && forged.status == 401)
            #expect(locked.body == forged.body)
            #expect(locked.string("error") == "invalid_signature")
            let headerNames = { (answer: HTTPTestClient.Answer) in
                answer.headers.map { $0.name.lowercased() }.filter { $0 != "x-request-id" && $0 != "date" }.sorted()
            }
            #expect(headerNames(locked) == headerNames(forged))
            let failures = try await harness.events(ofType: "signin.failed")
            #expect(
                failures.map(\.reason) == ["expired", "expired", "expired", "identity_locked", "invalid_signature"]
            )
            #expect(
                failures.map { $0.data["subject_hash"]?.stringValue } == [
                    subjectHash, subjectHash, subjectHash, subjectHash, nil,
                ]
            )

            let body = Array(#"{"provider": "google", "subject_hash": "\#(subjectHash)"}"#.utf8)
            let anonymous = try await Self.unlock(harness, key: nil, body: body)
            #expect(anonymous.status == 401 && anonymous.string("error") == "invalid_api_key")
            let auditor = try await Self.unlock(harness, key: audit, body: body)
            #expect(auditor.status == 403 && auditor.string("error") == "insufficient_scope")
            let refused: [(body: [UInt8], contentType: String, status: Int, error: String)] = [
                (body, "text/plain", 415, "unsupported_media_type"),
                (Array("not json".utf8), "application/json", 400, "invalid_request"),
                (Array("[]".utf8), "application/json", 400, "invalid_request"),
                (Array(#"{"provider": "google"}"#.utf8), "application/json", 400, "invalid_request"),
                (Array(#"{"subject_hash": "\#(subjectHash)"}"#.utf8), "application/json", 400, "invalid_request"),
                (
                    Array(#"{"provider": "google", "subject_hash": "\#(subjectHash.uppercased())"}"#.utf8),
                    "application/json", 400, "invalid_request"
                ),
                (
                    Array(#"{"provider": "go ogle", "subject_hash": "\#(subjectHash)"}"#.utf8), "application/json",
                    400, "invalid_request"
                ),
                (
                    Array(#"{"provider": 7, "subject_hash": "\#(subjectHash)"}"#.utf8), "application/json", 400,
                    "invalid_request"
                ),
                (Array(repeating: UInt8(ascii: " "), count: 5_000), "application/json", 413, "request_too_large"),
            ]
            for refusal in refused {
                let answer = try await Self.unlock(
                    harness,
                    key: admin,
                    body: refusal.body,
                    contentType: refusal.contentType
                )
                #expect(answer.status == refusal.status, "\(String(decoding: refusal.body.prefix(60), as: UTF8.self))")
                #expect(answer.string("error") == refusal.error)
            }
            #expect(try await harness.events(ofType: "identity.unlocked").isEmpty)

            let lifted = try await Self.unlock(harness, key: admin, body: body)
            #expect(lifted.status == 200)
            #expect(lifted.json["unlocked"] == .bool(true))
            #expect(lifted.string("subject_hash") == subjectHash && lifted.string("provider") == "google")
            let unlocked = try await harness.events(ofType: "identity.unlocked")
            #expect(unlocked.count == 1)
            #expect(unlocked.first?.data["cause"] == .string("operator"))
            #expect(unlocked.first?.data["actor"] == .string("key:ops-admin"))
            #expect(unlocked.first?.stream == "identity-google:\(subjectHash)")

            let again = try await Self.unlock(harness, key: admin, body: body)
            #expect(again.status == 200 && again.json["unlocked"] == .bool(false))
            #expect(try await harness.events(ofType: "identity.unlocked").count == 1)
            let reads = try await harness.events(ofType: "audit.accessed").filter { $0.outcome == "success" }
            #expect(
                reads.map { $0.data["query"]?.stringValue } == [
                    "unlock identity provider=google subject_hash=\(subjectHash): not locked"
                ]
            )

            let signedIn = try await Self.signIn(harness, try Self.googleToken(harness))
            #expect(signedIn.status == 200, "\(signedIn.json.canonicalText)")
            #expect(
                try await harness.count("SELECT count(*) FROM authlog.identity_lockouts WHERE unlocked_at IS NOT NULL")
                    == 1
            )
        }
    }
}
