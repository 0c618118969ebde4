import AuthlogAccounts
import AuthlogCore
import AuthlogProviders
import Foundation
import Testing

/// Apple server-to-server notifications and Kakao's unlink callback, decided by ProviderNotificationService.
struct ProviderNotificationTests {
    let rules: RuleHarness
    let providers: NotifyingProviders
    let notifications: ProviderNotificationService

    init() throws {
        self.rules = try RuleHarness()
        self.providers = try NotifyingProviders()
        self.notifications = self.providers.notifications(for: self.rules)
    }

    func notify(_ payload: String) async throws(ServiceError) {
        try await self.notifications.receiveApple(payload: payload, metadata: RuleHarness.request)
    }

    @Test func consentRevokedEndsTheAppleSessionsAndAReplayChangesNothing() async throws {
        let apple = try await self.rules.signInWithApple()
        let payload = try self.providers.appleNotification(type: "consent-revoked", jti: "notice-1")
        try await self.notify(payload)
        #expect(try await self.rules.refreshes(apple.refreshToken) == false)
        let consent = self.rules.events(.providerConsentRevoked)
        #expect(consent.count == 1)
        #expect(consent.first?.data["source"]?.stringValue == "apple_notification")
        #expect(consent.first?.data["provider_event_id"]?.stringValue == "notice-1")
        #expect(self.rules.events(.sessionRevoked).map(\.reason) == ["provider_consent_revoked"])

        let before = self.rules.stores.events.events.count
        try await self.notify(payload)
        let after = self.rules.stores.events.events
        #expect(after.count == before + 1)
        #expect(after.last?.type == .providerNotificationReceived)
        #expect(after.last?.reason == "duplicate")
        #expect(self.rules.events(.providerConsentRevoked).count == 1)
    }

    @Test func aBadSignatureIsRefusedRecordedAndChangesNothing() async throws {
        let apple = try await self.rules.signInWithApple()
        let forged = try self.providers.appleNotification(type: "consent-revoked", signedWithForeignKey: true)
        let refusal = await #expect(throws: ServiceError.self) { try await self.notify(forged) }
        #expect(refusal?.status.code == 400)
        #expect(refusal?.code == "invalid_notification")
        let refused = try #require(self.rules.events(.providerNotificationReceived).last)
        #expect(refused.outcome == .failure)
        #expect(refused.reason == "invalid_signature")
        #expect(self.rules.events(.providerConsentRevoked).isEmpty)
        #expect(try await self.rules.refreshes(apple.refreshToken))

        let foreignAudience = try self.providers.appleNotification(type: "consent-revoked", audience: "com.other.app")
        let audience = await #expect(throws: ServiceError.self) { try await self.notify(foreignAudience) }
        #expect(audience?.status.code == 400)
        #expect(self.rules.events(.providerNotificationReceived).last?.reason == "audience_mismatch")
        let stale = try self.providers.appleNotification(
            type: "consent-revoked",
            issuedAt: Int64(Date().timeIntervalSince1970) - 86_400
        )
        let old = await #expect(throws: ServiceError.self) { try await self.notify(stale) }
        #expect(old?.status.code == 400)
        #expect(self.rules.events(.providerNotificationReceived).last?.reason == "too_old")
        #expect(self.rules.events(.providerConsentRevoked).isEmpty)
        #expect(self.rules.events(.sessionRevoked).isEmpty)
    }

    @Test func anUnknownSubjectIsAcknowledgedAndRecorded() async throws {
        try await self.notify(try self.providers.appleNotification(subject: "999999.nobody", type: "consent-revoked"))
        let events = self.rules.stores.events.events
        #expect(events.map(\.type) == [.providerNotificationReceived])
        #expect(events.first?.reason == "unknown_subject")
        #expect(events.first?.outcome == .success)
    }

    @Test func accountDeleteDeletesAnAppleOnlyAccountAndEmailChangesAreRecorded() async throws {
        let apple = try await self.rules.signInWithApple()
        try await self.notify(try self.providers.appleNotification(type: "email-disabled"))
        #expect(self.rules.events(.providerEmailChanged).first?.data["change"]?.stringValue == "email-disabled")

        try await self.notify(try self.providers.appleNotification(type: "account-delete"))
        let deleted = try #require(self.rules.events(.accountDeleted).first)
        #expect(deleted.userID == apple.userID)
        #expect(deleted.data["requested_by"]?.stringValue == "apple_notification")
        #expect(try await self.rules.refreshes(apple.refreshToken) == false)
        #expect(try await self.rules.signInWithApple().isNewUser)
    }

    @Test func accountDeleteOfALinkedAppleIdentityOnlyUnlinksIt() async throws {
        let apple = try await self.rules.signInWithApple()
        self.rules.github.accept("583231", email: "octo@example.com")
        try await self.rules.accounts.link(
            bearer: apple.accessToken,
            provider: "github",
            proof: SigninProof(subject: "583231"),
            metadata: RuleHarness.request
        )
        let github = try await self.rules.signIn(with: "github", "583231")
        try await self.notify(try self.providers.appleNotification(type: "account-delete"))
        #expect(self.rules.events(.accountDeleted).isEmpty)
        #expect(self.rules.events(.identityUnlinked).first?.provider == "apple")
        #expect(try await self.rules.refreshes(apple.refreshToken) == false)
        #expect(try await self.rules.refreshes(github.refreshToken))
    }

    @Test func kakaoUnlinkWithTheAdminKeyUnlinksAndAWrongKeyIsRefusedAndRecorded() async throws {
        self.rules.kakao.accept("3141592653")
        let kakao = try await self.rules.signIn(with: "kakao", "3141592653")
        self.rules.github.accept("583231")
        try await self.rules.accounts.link(
            bearer: kakao.accessToken,
            provider: "github",
            proof: SigninProof(subject: "583231"),
            metadata: RuleHarness.request
        )
        let fields = [
            "app_id": NotifyingProviders.kakaoAppID, "user_id": "3141592653", "referrer_type": "UNLINK_FROM_APPS",
        ]
        for header in ["KakaoAK wrong", "KakaoAK ", "KakaoAK", "Bearer \(NotifyingProviders.kakaoAdminKey)"] {
            let refusal = await #expect(throws: ServiceError.self) {
                try await self.notifications.receiveKakaoUnlink(
                    authorization: header,
                    fields: fields,
                    metadata: RuleHarness.request
                )
            }
            #expect(refusal?.status.code == 401, "\(header)")
        }
        #expect(self.rules.events(.providerNotificationReceived).last?.reason == "invalid_client")
        #expect(try await self.rules.refreshes(kakao.refreshToken))

        try await self.notifications.receiveKakaoUnlink(
            authorization: "KakaoAK \(NotifyingProviders.kakaoAdminKey)",
            fields: fields,
            metadata: RuleHarness.request
        )
        let received = try #require(self.rules.events(.providerNotificationReceived).last)
        #expect(received.outcome == .success)
        #expect(received.data["referrer_type"]?.stringValue == "UNLINK_FROM_APPS")
        #expect(self.rules.events(.providerConsentRevoked).first?.data["source"]?.stringValue == "kakao_unlink")
        #expect(self.rules.events(.identityUnlinked).first?.provider == "kakao")
        #expect(self.rules.events(.sessionRevoked).first?.reason == "provider_consent_revoked")
        #expect(try await self.rules.stores.sessions.identities(of: kakao.userID).map(\.provider) == ["github"])

        let otherApp = await #expect(throws: ServiceError.self) {
            try await self.notifications.receiveKakaoUnlink(
                authorization: "KakaoAK \(NotifyingProviders.kakaoAdminKey)",
                fields: ["app_id": "999", "user_id": "3141592653"],
                metadata: RuleHarness.request
            )
        }
        #expect(otherApp?.status.code == 403)
        #expect(self.rules.events(.providerNotificationReceived).last?.reason == "app_id_mismatch")
    }
}
