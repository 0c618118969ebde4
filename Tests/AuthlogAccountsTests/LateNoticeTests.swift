import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import Foundation
import Testing

/// Provider notices delivered late: a notice applies to what existed at its `event_time`, so sessions the
/// user started after it are left alone, and the notice records which sessions it ended and which it left.
struct LateNoticeTests {
    let rules: RuleHarness
    let providers: NotifyingProviders
    let notifications: ProviderNotificationService

    init() throws {
        self.rules = try RuleHarness()
        self.providers = try NotifyingProviders()
        self.notifications = self.providers.notifications(for: self.rules)
    }

    /// An Apple notification of `type` whose `event_time` is `eventTime` (to the millisecond), with a new `jti`.
    func appleNotice(_ type: String, at eventTime: Timestamp) throws -> String {
        let events: JSONValue = .object([
            ("type", .string(type)), ("sub", .string("001234.apple-user")),
            ("event_time", .number(String(eventTime.microsecondsSinceEpoch / 1_000))),
        ])
        let claims: JSONValue = .object([
            ("iss", .string("https://appleid.apple.com")), ("aud", .string(NotifyingProviders.appleClient)),
            ("iat", .number(String(Int64(Date().timeIntervalSince1970)))), ("jti", .string(UUID().uuidString)),
            ("events", .string(events.canonicalText)),
        ])
        return try JWSSigner(key: self.providers.key, kid: self.providers.kid).sign(claims)
    }

    /// Now, with a few milliseconds on both sides, so that sessions started before and after it differ from
    /// it even at Apple's millisecond resolution.
    func momentBetweenSignIns() async throws -> Timestamp {
        try await Task.sleep(for: .milliseconds(3))
        let moment = Timestamp.now()
        try await Task.sleep(for: .milliseconds(3))
        return moment
    }

    /// The accepted notice's record.
    func received() throws -> EventEnvelope {
        try #require(self.rules.events(.providerNotificationReceived).last { $0.reason == nil })
    }

    @Test func aConsentRevokedTimedBeforeASecondSignInLeavesThatSessionAliveAndRecordsIt() async throws {
        let first = try await self.rules.signInWithApple()
        let revokedAt = try await self.momentBetweenSignIns()
        let second = try await self.rules.signInWithApple()
        try await self.notifications.receiveApple(
            payload: try self.appleNotice("consent-revoked", at: revokedAt),
            metadata: RuleHarness.request
        )
        #expect(try await self.rules.refreshes(first.refreshToken) == false)
        #expect(try await self.rules.refreshes(second.refreshToken))
        #expect(self.rules.events(.sessionRevoked).compactMap(\.sessionID) == [first.sessionID])
        #expect(self.rules.events(.sessionRevoked).first?.reason == "provider_consent_revoked")
        // The user consented again since the notice's time: no consent revocation is recorded as current.
        #expect(self.rules.events(.providerConsentRevoked).isEmpty)

        let notice = try self.received().payload(as: ProviderNotificationReceived.self)
        #expect(notice.eventTime?.microsecondsSinceEpoch == revokedAt.microsecondsSinceEpoch / 1_000 * 1_000)
        #expect(notice.sessionsEnded == [first.sessionID.lowercased])
        let left = try #require(notice.sessionsLeft?.first)
        #expect(notice.sessionsLeft?.count == 1)
        #expect(left.sessionID == second.sessionID.lowercased)
        #expect(left.reason == .startedAfterNotice)
        #expect(
            try self.received().data["sessions_left"]?.arrayValue?.first?["reason"]?.stringValue
                == "started_after_notice"
        )
    }

    @Test func aConsentRevokedTimedAfterBothSignInsEndsBoth() async throws {
        let first = try await self.rules.signInWithApple()
        let second = try await self.rules.signInWithApple()
        let revokedAt = try await self.momentBetweenSignIns()
        try await self.notifications.receiveApple(
            payload: try self.appleNotice("consent-revoked", at: revokedAt),
            metadata: RuleHarness.request
        )
        #expect(try await self.rules.refreshes(first.refreshToken) == false)
        #expect(try await self.rules.refreshes(second.refreshToken) == false)
        let notice = try self.received().payload(as: ProviderNotificationReceived.self)
        #expect(Set(notice.sessionsEnded ?? []) == [first.sessionID.lowercased, second.sessionID.lowercased])
        #expect(notice.sessionsLeft == [])
        #expect(self.rules.events(.providerConsentRevoked).count == 1)
    }

    @Test func aLateAccountDeleteEndsOnlyTheOlderSessionAndKeepsTheAccount() async throws {
        let first = try await self.rules.signInWithApple()
        let deletedAt = try await self.momentBetweenSignIns()
        let second = try await self.rules.signInWithApple()
        try await self.notifications.receiveApple(
            payload: try self.appleNotice("account-delete", at: deletedAt),
            metadata: RuleHarness.request
        )
        #expect(self.rules.events(.accountDeleted).isEmpty)
        #expect(self.rules.events(.identityUnlinked).isEmpty)
        #expect(try await self.rules.refreshes(first.refreshToken) == false)
        #expect(try await self.rules.refreshes(second.refreshToken))
        #expect(try await self.rules.stores.sessions.identities(of: second.userID).map(\.provider) == ["apple"])
        let notice = try self.received().payload(as: ProviderNotificationReceived.self)
        #expect(notice.sessionsLeft?.map(\.sessionID) == [second.sessionID.lowercased])
    }

    @Test func aLateAccountDeleteKeepsAnAccountSignedIntoSinceEvenWhenThatSessionEnded() async throws {
        let first = try await self.rules.signInWithApple()
        let deletedAt = try await self.momentBetweenSignIns()
        let second = try await self.rules.signInWithApple()
        try await self.rules.tokens.logout(bearer: second.accessToken, scope: .this, metadata: RuleHarness.request)
        try await self.notifications.receiveApple(
            payload: try self.appleNotice("account-delete", at: deletedAt),
            metadata: RuleHarness.request
        )
        // The user consented again after the notice's time: the grant is newer than the notice.
        #expect(self.rules.events(.accountDeleted).isEmpty)
        #expect(self.rules.events(.identityUnlinked).isEmpty)
        #expect(try await self.rules.refreshes(first.refreshToken) == false)
        #expect(try await self.rules.stores.sessions.identities(of: second.userID).map(\.provider) == ["apple"])
    }

    @Test func kakaosUnlinkCarriesNoTimeAndRecordsEverySessionItEnds() async throws {
        self.rules.kakao.accept("3141592653")
        let first = try await self.rules.signIn(with: "kakao", "3141592653")
        let second = try await self.rules.signIn(with: "kakao", "3141592653")
        self.rules.github.accept("583231")
        try await self.rules.accounts.link(
            bearer: first.accessToken,
            provider: "github",
            proof: SigninProof(subject: "583231"),
            metadata: RuleHarness.request
        )
        try await self.notifications.receiveKakaoUnlink(
            authorization: "KakaoAK \(NotifyingProviders.kakaoAdminKey)",
            fields: ["app_id": NotifyingProviders.kakaoAppID, "user_id": "3141592653"],
            metadata: RuleHarness.request
        )
        let notice = try self.received().payload(as: ProviderNotificationReceived.self)
        #expect(notice.eventTime == nil)
        #expect(Set(notice.sessionsEnded ?? []) == [first.sessionID.lowercased, second.sessionID.lowercased])
        #expect(notice.sessionsLeft == [])
        #expect(try await self.rules.refreshes(second.refreshToken) == false)
    }

    @Test func aPayloadRecordedBeforeTheseFieldsStillDecodes() throws {
        let old: JSONValue = .object([
            ("notice", .string("consent-revoked")), ("notice_id", .string("notice-1")), ("subject_hash", .string("ab")),
        ])
        let payload = try old.decode(ProviderNotificationReceived.self)
        #expect(payload.notice == "consent-revoked")
        #expect(payload.eventTime == nil && payload.sessionsEnded == nil && payload.sessionsLeft == nil)
    }
}
