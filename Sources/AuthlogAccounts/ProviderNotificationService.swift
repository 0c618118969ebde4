public import AuthlogCore
import AuthlogProviders
import Foundation

/// Provider callbacks: Apple's server-to-server notifications and Kakao's unlink callback. Every call is
/// recorded as `provider.notification_received` (accepted, refused, duplicate or about nobody we know);
/// what it changes is recorded as the account events it causes.
public struct ProviderNotificationService: Sendable {
    let dependencies: ServiceDependencies
    let signin: SigninService
    let accounts: AccountService

    /// Creates the service.
    public init(dependencies: ServiceDependencies, signin: SigninService, accounts: AccountService) {
        self.dependencies = dependencies
        self.signin = signin
        self.accounts = accounts
    }

    /// `POST /v1/providers/apple/notifications`: verifies the `payload` JWT (Apple's keys, `iss`, `aud`, recent
    /// `iat`), drops a replayed `jti`, and acts on `consent-revoked`, `account-delete`, `email-enabled` and
    /// `email-disabled`.
    /// - Throws: ``ServiceError`` 400 `invalid_notification` for a payload that does not verify (recorded, nothing
    ///   changed), 404 when Apple is not enabled, 503 when the database is down (Apple retries).
    public func receiveApple(payload: String?, metadata: RequestMetadata) async throws(ServiceError) {
        guard let apple = self.signin.provider(named: "apple") as? AppleProvider else {
            throw ServiceError(.notFound, "unknown_provider", "Sign in with Apple is not enabled.")
        }
        let notification = try await self.verified(payload, at: apple, metadata)
        let registry = IdentityRegistry(dependencies: self.dependencies)
        let standing = try await registry.standing(provider: "apple", subject: notification.subject)
        var received = ProviderNotificationReceived(
            notice: EnvelopeText.normalized(notification.type, limit: EnvelopeText.Limit.code),
            noticeID: EnvelopeText.normalized(notification.noticeID, limit: EnvelopeText.Limit.requestID),
            subjectHash: standing.subjectHash,
            eventTime: notification.eventTime
        )
        let claimed = try await self.dependencies.storeCall {
            try await self.dependencies.notices.claim(provider: "apple", noticeID: notification.noticeID, at: .now())
        }
        guard claimed else {
            try await self.record(
                "apple",
                received,
                reason: NotificationReason.duplicate.rawValue,
                userID: nil,
                metadata
            )
            return
        }
        guard case .linked(let userID, let subjectHash) = standing else {
            try await self.record(
                "apple",
                received,
                reason: NotificationReason.unknownSubject.rawValue,
                userID: nil,
                metadata
            )
            return
        }
        received.subjectHash = subjectHash
        do {
            let reach = try await self.reach(of: notification, userID: userID)
            reach.annotate(&received)
            try await self.record("apple", received, reason: nil, userID: userID, metadata)
            try await self.act(
                on: notification,
                userID: userID,
                subjectHash: subjectHash,
                reach: reach,
                metadata: metadata
            )
        } catch {
            // Acting failed: give the jti back so that Apple's retry is acted on.
            try? await self.dependencies.notices.release(provider: "apple", noticeID: notification.noticeID)
            throw error
        }
    }

    /// The notification `payload` holds, once its JWT verifies; a missing or refused payload is recorded.
    private func verified(
        _ payload: String?,
        at apple: AppleProvider,
        _ metadata: RequestMetadata
    ) async throws(ServiceError) -> AppleNotification {
        guard let payload, !payload.isEmpty else {
            throw try await self.refuse(
                "apple",
                reason: NotificationReason.malformed.rawValue,
                description: "payload is required.",
                metadata
            )
        }
        do {
            return try await apple.verifyNotification(
                payload,
                maximumAge: self.dependencies.settings.notificationMaximumAge
            )
        } catch {
            throw try await self.refuse(
                "apple",
                reason: error.reason.rawValue,
                description: "The notification was refused: \(error.message).",
                metadata
            )
        }
    }

    /// The Apple sessions a notice that ends sessions reaches at its `event_time`; none for the others.
    private func reach(of notification: AppleNotification, userID: UUID) async throws(ServiceError) -> NoticeReach {
        guard notification.kind == .consentRevoked || notification.kind == .accountDelete else {
            return .none(eventTime: notification.eventTime)
        }
        let sessions = try await self.dependencies.storeCall {
            try await self.dependencies.queries.activeSessions(of: userID, provider: "apple")
        }
        return NoticeReach(sessions: sessions.map(\.session), eventTime: notification.eventTime)
    }

    /// Acts on a verified notice about a known user: `consent-revoked` ends the Apple sessions it reaches,
    /// `account-delete` see ``actOnAccountDelete(userID:subjectHash:reach:consent:metadata:)``, the email
    /// changes are recorded.
    private func act(
        on notification: AppleNotification,
        userID: UUID,
        subjectHash: String,
        reach: NoticeReach,
        metadata: RequestMetadata
    ) async throws(ServiceError) {
        let consent = (source: ConsentRevocationSource.appleNotification, noticeID: Optional(notification.noticeID))
        switch notification.kind {
        case .consentRevoked:
            try await self.accounts.endSessions(
                of: userID,
                provider: "apple",
                reason: .providerConsentRevoked,
                consent: consent,
                metadata: metadata,
                where: reach.reaches
            )
        case .accountDelete:
            try await self.actOnAccountDelete(
                userID: userID,
                subjectHash: subjectHash,
                reach: reach,
                consent: consent,
                metadata: metadata
            )
        case .emailDisabled, .emailEnabled:
            let event = try self.dependencies.event(
                metadata,
                stream: .user(userID),
                provider: "apple",
                userID: userID,
                at: .now(),
                data: ProviderEmailChanged(change: notification.type)
            )
            try await self.dependencies.append(AppendCommand(event))
        case nil:
            return
        }
    }

    /// Whether the user signed in with Apple, or linked it, after `eventTime` (the newest 500 such events are
    /// read, newest first, which reach back past any notice Apple still delivers).
    private func signedInWithApple(_ userID: UUID, after eventTime: Timestamp?) async throws(ServiceError) -> Bool {
        guard let eventTime else { return false }
        var before: ActivityPosition?
        for _ in 0..<10 {
            let page = try await self.dependencies.storeCall {
                try await self.dependencies.ownAccount.activity(
                    of: userID,
                    types: [.signinSucceeded, .identityLinked],
                    before: before,
                    limit: 50
                )
            }
            for record in page where record.occurredAt > eventTime {
                if record.provider == "apple" { return true }
            }
            guard let last = page.last, last.occurredAt > eventTime, page.count == 50 else { return false }
            before = last.position
        }
        return false
    }

    /// `account-delete` deletes an Apple-only account, or unlinks the Apple identity of one with others. When
    /// the user signed in with Apple (or linked it) after the notice's time, whether or not that session is
    /// still open, the grant is newer than the notice: only the sessions it reaches end, and the identity and
    /// account stay.
    private func actOnAccountDelete(
        userID: UUID,
        subjectHash: String,
        reach: NoticeReach,
        consent: (source: ConsentRevocationSource, noticeID: String?),
        metadata: RequestMetadata
    ) async throws(ServiceError) {
        let signedInSince = try await self.signedInWithApple(userID, after: reach.eventTime)
        guard reach.left.isEmpty, !signedInSince else {
            try await self.accounts.endSessions(
                of: userID,
                provider: "apple",
                reason: .providerConsentRevoked,
                consent: consent,
                metadata: metadata,
                where: reach.reaches
            )
            return
        }
        let remaining = try await self.dependencies.storeCall {
            try await self.dependencies.queries.identities(of: userID)
        }
        guard remaining.contains(where: { $0.provider != "apple" }) else {
            try await self.accounts.endSessions(
                of: userID,
                provider: "apple",
                reason: .providerConsentRevoked,
                consent: consent,
                metadata: metadata
            )
            _ = try await self.accounts.deletion.delete(
                userID: userID,
                requestedBy: "apple_notification",
                metadata: metadata
            )
            return
        }
        try await self.unlink(userID: userID, provider: "apple", subjectHash: subjectHash, consent: consent, metadata)
    }

    /// `POST|GET /v1/providers/kakao/unlink`: Kakao says a user unlinked the app. `Authorization: KakaoAK
    /// <admin key>` (compared in constant time) and `app_id` must match; the user's Kakao identity is unlinked,
    /// its sessions revoked and the consent revocation recorded with Kakao's `referrer_type`.
    /// - Throws: ``ServiceError`` 401 `invalid_client` for a wrong key, 403 `app_id_mismatch`, 400 without
    ///   `user_id` (each recorded), 404 when Kakao is not enabled, 503 when the database is down.
    public func receiveKakaoUnlink(
        authorization: String?,
        fields: [String: String],
        metadata: RequestMetadata
    ) async throws(ServiceError) {
        guard let kakao = self.signin.provider(named: "kakao") as? KakaoProvider else {
            throw ServiceError(.notFound, "unknown_provider", "Kakao Login is not enabled.")
        }
        let referrer = EnvelopeText.normalized(fields["referrer_type"], limit: EnvelopeText.Limit.code)
        try await self.checkCaller(kakao, authorization: authorization, appID: fields["app_id"], metadata)
        guard let kakaoUserID = fields["user_id"], !kakaoUserID.isEmpty, kakaoUserID.utf8.count <= 64 else {
            throw try await self.refuse(
                "kakao",
                reason: NotificationReason.malformed.rawValue,
                description: "user_id is required.",
                metadata
            )
        }
        let standing = try await IdentityRegistry(dependencies: self.dependencies)
            .standing(provider: "kakao", subject: kakaoUserID)
        var received = ProviderNotificationReceived(
            notice: "unlink",
            subjectHash: standing.subjectHash,
            referrerType: referrer
        )
        guard case .linked(let userID, let subjectHash) = standing else {
            try await self.record(
                "kakao",
                received,
                reason: NotificationReason.unknownSubject.rawValue,
                userID: nil,
                metadata
            )
            return
        }
        received.subjectHash = subjectHash
        // Kakao's callback carries no time: it reaches every Kakao session.
        let sessions = try await self.dependencies.storeCall {
            try await self.dependencies.queries.activeSessions(of: userID, provider: "kakao")
        }
        NoticeReach(sessions: sessions.map(\.session), eventTime: nil).annotate(&received)
        try await self.record("kakao", received, reason: nil, userID: userID, metadata)
        try await self.unlink(
            userID: userID,
            provider: "kakao",
            subjectHash: subjectHash,
            consent: (.kakaoUnlink, nil),
            metadata
        )
    }

    /// Checks that Kakao is the caller: the `KakaoAK` admin key and the `app_id`; a refusal is recorded.
    private func checkCaller(
        _ kakao: KakaoProvider,
        authorization: String?,
        appID: String?,
        _ metadata: RequestMetadata
    ) async throws(ServiceError) {
        guard kakao.isAdminAuthorization(authorization) else {
            var answer = ServiceError(
                .unauthorized,
                NotificationReason.invalidClient.rawValue,
                "The KakaoAK admin key is wrong."
            )
            answer.headers[.wwwAuthenticate] = "KakaoAK"
            throw try await self.refuse(
                "kakao",
                reason: NotificationReason.invalidClient.rawValue,
                answer: answer,
                metadata
            )
        }
        guard kakao.isOurApp(appID) else {
            let answer = ServiceError(
                .forbidden,
                NotificationReason.appIDMismatch.rawValue,
                "app_id is not this app's."
            )
            throw try await self.refuse(
                "kakao",
                reason: NotificationReason.appIDMismatch.rawValue,
                answer: answer,
                metadata
            )
        }
    }

    /// Revokes the provider's sessions, records the consent revocation and unlinks the identity in one
    /// command, then forgets what the identity proved.
    private func unlink(
        userID: UUID,
        provider: String,
        subjectHash: String,
        consent: (source: ConsentRevocationSource, noticeID: String?),
        _ metadata: RequestMetadata
    ) async throws(ServiceError) {
        let unlinked = try self.dependencies.event(
            metadata,
            stream: .user(userID),
            provider: provider,
            userID: userID,
            at: .now(),
            data: IdentityUnlinked(provider: provider, subjectHash: subjectHash)
        )
        try await self.accounts.endSessions(
            of: userID,
            provider: provider,
            reason: .providerConsentRevoked,
            consent: consent,
            extra: [unlinked],
            metadata: metadata
        )
        try await self.dependencies.storeCall {
            try await self.dependencies.emails.forget(userID: userID, provider: provider)
            try await self.dependencies.credentials.forget(provider: provider, subjectHash: subjectHash)
        }
    }

    /// Records a callback refused before its body could be read and returns the answer to give (or the
    /// store's, when even that cannot be recorded).
    public func refuseUnreadable(
        _ provider: String,
        reason: RequestRefusalReason,
        answer: ServiceError,
        _ metadata: RequestMetadata
    ) async -> ServiceError {
        do {
            return try await self.refuse(provider, reason: reason.rawValue, answer: answer, metadata)
        } catch {
            return error
        }
    }

    /// Records a notification (`reason` nil: accepted and acted on).
    private func record(
        _ provider: String,
        _ payload: ProviderNotificationReceived,
        reason: String?,
        userID: UUID?,
        _ metadata: RequestMetadata
    ) async throws(ServiceError) {
        let event = try self.dependencies.event(
            metadata,
            stream: StreamName(category: "provider", id: provider),
            reason: reason,
            provider: provider,
            userID: userID,
            at: .now(),
            data: payload
        )
        try await self.dependencies.append(AppendCommand(event))
    }

    /// Records a refused notification and returns the 400 `invalid_notification` answer.
    private func refuse(
        _ provider: String,
        reason: String,
        description: String,
        _ metadata: RequestMetadata
    ) async throws(ServiceError) -> ServiceError {
        try await self.refuse(
            provider,
            reason: reason,
            answer: ServiceError(.badRequest, "invalid_notification", description),
            metadata
        )
    }

    private func refuse(
        _ provider: String,
        reason: String,
        answer: ServiceError,
        _ metadata: RequestMetadata
    ) async throws(ServiceError) -> ServiceError {
        let event = try self.dependencies.event(
            metadata,
            stream: StreamName(category: "provider", id: provider),
            outcome: .failure,
            reason: reason,
            provider: provider,
            at: .now(),
            data: ProviderNotificationReceived()
        )
        try await self.dependencies.append(AppendCommand(event))
        return answer
    }
}
