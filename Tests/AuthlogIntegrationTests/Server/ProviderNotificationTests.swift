import AuthlogCore
import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// Apple server-to-server notifications and Kakao's unlink callback.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct ProviderNotificationTests {
    static func notify(_ harness: ServerHarness, _ payload: String) async throws -> HTTPTestClient.Answer {
        try await harness.client.post("/v1/providers/apple/notifications", .members(["payload": .string(payload)]))
    }

    @Test func aBadSignatureIsRefusedRecordedAndChangesNothing() async throws {
        try await ServerHarness.run { harness in
            let apple = try await harness.signInWithApple()
            let forged = try harness.providers.apple.makeAppleNotification(
                subject: "001234.apple-user",
                type: "consent-revoked",
                audience: Fixture.appleClient,
                signedWithForeignKey: true
            )
            let answer = try await Self.notify(harness, forged)
            #expect(answer.status == 400)
            #expect(answer.string("error") == "invalid_notification")
            let refused = try #require(try await harness.events(ofType: "provider.notification_received").last)
            #expect(refused.outcome == "failure")
            #expect(refused.reason == "invalid_signature")
            #expect(try await harness.events(ofType: "provider.consent_revoked").isEmpty)
            #expect(try await harness.refresh(apple.refreshToken).status == 200)

            let foreignAudience = try harness.providers.apple.makeAppleNotification(
                subject: "001234.apple-user",
                type: "consent-revoked",
                audience: "com.other.app"
            )
            #expect(try await Self.notify(harness, foreignAudience).status == 400)
            #expect(
                try await harness.events(ofType: "provider.notification_received").last?.reason == "audience_mismatch"
            )
            let stale = try harness.providers.apple.makeAppleNotification(
                subject: "001234.apple-user",
                type: "consent-revoked",
                audience: Fixture.appleClient,
                issuedAt: Int64(Date().timeIntervalSince1970) - 86_400
            )
            #expect(try await Self.notify(harness, stale).status == 400)
            #expect(try await harness.events(ofType: "provider.notification_received").last?.reason == "too_old")
            #expect(try await harness.events(ofType: "provider.consent_revoked").isEmpty)
        }
    }

    @Test func kakaoUnlinkWithTheAdminKeyUnlinksAndAWrongKeyIsRefusedAndRecorded() async throws {
        try await ServerHarness.run { harness in
            let body = try ProofMaker(providers: harness.providers).validBody(for: "kakao")
            let kakao = try await harness.post("/v1/signin/kakao", body).signedIn()
            #expect(
                try await harness.send("POST", "/v1/me/identities/github", harness.githubProof(), as: kakao).status
                    == 200
            )
            let form = "app_id=\(Fixture.kakaoAppID)&user_id=3141592653&referrer_type=UNLINK_FROM_APPS"

            let wrong = try await harness.client.send(
                "POST",
                "/v1/providers/kakao/unlink",
                body: Array(form.utf8),
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", "KakaoAK wrong")]
            )
            #expect(wrong.status == 401)
            for header in ["KakaoAK ", "KakaoAK", "Bearer \(Fixture.kakaoAdminKey)"] {
                let empty = try await harness.client.send(
                    "GET",
                    "/v1/providers/kakao/unlink?\(form)",
                    headers: [("Authorization", header)]
                )
                #expect(empty.status == 401, "\(header)")
            }
            #expect(try await harness.events(ofType: "provider.notification_received").last?.reason == "invalid_client")
            #expect(try await harness.refresh(kakao.refreshToken).status == 200)

            let answer = try await harness.client.send(
                "GET",
                "/v1/providers/kakao/unlink?\(form)",
                headers: [("Authorization", "KakaoAK \(Fixture.kakaoAdminKey)")]
            )
            #expect(answer.status == 200)
            let received = try #require(try await harness.events(ofType: "provider.notification_received").last)
            #expect(received.outcome == "success")
            #expect(received.data["referrer_type"] == "UNLINK_FROM_APPS")
            #expect(
                try await harness.events(ofType: "provider.consent_revoked").first?.data["source"] == "kakao_unlink"
            )
            #expect(try await harness.events(ofType: "identity.unlinked").first?.provider == "kakao")
            #expect(try await harness.events(ofType: "session.revoked").first?.reason == "provider_consent_revoked")
            #expect(try await harness.count("SELECT count(*) FROM authlog.identities WHERE provider = 'kakao'") == 0)

            let otherApp = try await harness.client.send(
                "POST",
                "/v1/providers/kakao/unlink",
                body: Array("app_id=999&user_id=3141592653".utf8),
                headers: [
                    ("Content-Type", "application/x-www-form-urlencoded"),
                    ("Authorization", "KakaoAK \(Fixture.kakaoAdminKey)"),
                ]
            )
            #expect(otherApp.status == 403)
            #expect(
                try await harness.events(ofType: "provider.notification_received").last?.reason == "app_id_mismatch"
            )
        }
    }
}
