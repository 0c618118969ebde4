import Foundation

/// The pure function from one event to the projection changes it causes.
///
/// The live write path and `authlog rebuild` both call it, so a rebuild replays exactly the same logic.
public enum ProjectionReducer {
    /// The changes `event` makes to the projections, in the order they apply. `decoded` is the event's
    /// payload when the caller has decoded it already (validation does); otherwise `data` is decoded here.
    /// - Throws: `DecodingError` when the event's `data` does not fit its type (validated events never do).
    ///
    /// Events another system sent over `POST /v1/events` (they carry `data.ingested_by`) are recorded, never
    /// acted on: they are counted in the sign-in reports, but they start, end or change no session, token,
    /// identity or user, live or in a rebuild. An `ingest` key must never be able to grant access.
    public static func changes(
        for envelope: EventEnvelope,
        decoded: (any EventPayload)? = nil
    ) throws
        -> [ProjectionChange]
    {
        let changes = try self.allChanges(for: envelope, decoded: decoded)
        guard Self.isIngestedByAnotherSystem(envelope) else { return changes }
        return changes.filter { change in
            if case .countSignin = change { return true }
            return false
        }
    }

    /// Whether `envelope` came in over `POST /v1/events` (authlog sets `data.ingested_by` there and refuses it
    /// from the sender).
    public static func isIngestedByAnotherSystem(_ envelope: EventEnvelope) -> Bool {
        envelope.data["ingested_by"] != nil
    }

    private static func allChanges(
        for envelope: EventEnvelope,
        decoded: (any EventPayload)?
    ) throws
        -> [ProjectionChange]
    {
        let event = DecodedEvent(envelope: envelope, decoded: decoded)
        let at = envelope.occurredAt
        switch envelope.type {
        case .signinSucceeded:
            guard let sessionID = envelope.sessionID, let userID = envelope.userID, let provider = envelope.provider
            else { return [] }
            let payload = try event.payload(as: SigninSucceeded.self)
            return [
                .startSession(
                    sessionID: sessionID,
                    userID: userID,
                    provider: provider,
                    clientID: envelope.clientID,
                    kind: payload.rememberMe == false ? .session : .rememberMe,
                    at: at
                ),
                .countSignin(day: at.dayNumber, provider: provider, outcome: .success),
                .clearIdentityFailures(provider: provider, subjectHash: payload.subjectHash),
            ]
        case .signinFailed:
            guard let provider = envelope.provider else { return [] }
            let counted = try Self.lockoutChanges(for: envelope) { try event.payload(as: SigninFailed.self) }
            return [.countSignin(day: at.dayNumber, provider: provider, outcome: .failure)] + counted
        case .userRegistered:
            let payload = try event.payload(as: UserRegistered.self)
            guard let userID = envelope.userID else { return [] }
            return [
                .insertUser(userID: userID, createdAt: at, provider: payload.provider),
                .linkIdentity(provider: payload.provider, subjectHash: payload.subjectHash, userID: userID, at: at),
            ]
        case .identityLinked:
            let payload = try event.payload(as: IdentityLinked.self)
            guard let userID = envelope.userID else { return [] }
            return [.linkIdentity(provider: payload.provider, subjectHash: payload.subjectHash, userID: userID, at: at)]
        case .identityUnlinked:
            let payload = try event.payload(as: IdentityUnlinked.self)
            return [.unlinkIdentity(provider: payload.provider, subjectHash: payload.subjectHash)]
        case .tokenIssued, .tokenRefreshed, .tokenReuseDetected, .tokenRevoked:
            return try self.tokenChanges(for: event)
        case .sessionReauthenticated:
            guard let sessionID = envelope.sessionID else { return [] }
            return [.reauthenticateSession(sessionID: sessionID, at: at)]
        case .tokenRefreshFailed, .tokenAccessRefused, .tokenRefreshReplayed, .providerEmailChanged,
            .providerNotificationReceived,
            .providerRevocationAttempted, .accountActionRefused, .accountNotMeReported, .signinFlagged,
            .auditCheckpointSigned,
            .auditAccessed,
            .auditRetentionApplied, .auditCheckpointRefused, .auditEventsRefused, .auditWitnessAlarm,
            .auditWitnessAlarmCleared, .auditWriteOutage, .auditSinkFailing, .auditCheckpointFailing,
            .auditSealingStalled,
            .auditWitnessFailing, .auditSinkRecovered, .auditCheckpointRecovered, .auditSealingRecovered,
            .auditWitnessRecovered,
            .auditRefusalsDropped, .rateLimitExceeded, .requestRefused:
            return []
        case .identityLocked:
            return try Self.lockoutChanges(for: envelope) { try event.payload(as: IdentityLocked.self) }
        case .identityUnlocked:
            return try Self.lockoutChanges(for: envelope) { try event.payload(as: IdentityUnlocked.self) }
        case .sessionLoggedOut, .sessionRevoked, .sessionExpired, .providerConsentRevoked, .accountDeleted:
            return try self.endingChanges(for: event)
        }
    }

    private static func tokenChanges(for event: DecodedEvent) throws -> [ProjectionChange] {
        let envelope = event.envelope
        let at = envelope.occurredAt
        guard let sessionID = envelope.sessionID, let userID = envelope.userID else { return [] }
        switch envelope.type {
        case .tokenIssued:
            return try Self.issuedChanges(for: event, sessionID: sessionID, userID: userID)
        case .tokenRefreshed:
            return try Self.refreshedChanges(for: event, sessionID: sessionID, userID: userID)
        case .tokenReuseDetected:
            let payload = try event.payload(as: TokenReuseDetected.self)
            return [
                .revokeFamily(
                    familyID: payload.familyID,
                    sessionID: sessionID,
                    reason: SessionEndReason.reuse.rawValue,
                    at: at
                ),
                .endSession(sessionID: sessionID, state: .revoked, reason: SessionEndReason.reuse.rawValue, at: at),
            ]
        case .tokenRevoked:
            let payload = try event.payload(as: TokenRevoked.self)
            guard let familyID = payload.familyID else {
                return [.revokeToken(tokenID: payload.tokenID, sessionID: sessionID, reason: payload.reason, at: at)]
            }
            let reason = SessionEndReason.tokenRevoked.rawValue
            return [
                .revokeFamily(familyID: familyID, sessionID: sessionID, reason: reason, at: at),
                .endSession(sessionID: sessionID, state: .revoked, reason: reason, at: at),
            ]
        default:
            return []
        }
    }

    /// `token.issued`: the session's first refresh token (none without "remember me" data) and its touch.
    private static func issuedChanges(
        for event: DecodedEvent,
        sessionID: UUID,
        userID: UUID
    ) throws -> [ProjectionChange] {
        let envelope = event.envelope
        let at = envelope.occurredAt
        let payload = try event.payload(as: TokenIssued.self)
        var changes: [ProjectionChange] = []
        if let tokenID = payload.refreshTokenID, let hashText = payload.refreshTokenHash,
            let hash = Hex.decode(hashText), let familyID = payload.familyID,
            let expiresAt = payload.refreshTokenExpiresAt
        {
            changes.append(
                .issueRefreshToken(
                    RefreshTokenRow(
                        tokenHash: hash,
                        tokenID: tokenID,
                        familyID: familyID,
                        parentID: nil,
                        sessionID: sessionID,
                        userID: userID,
                        provider: envelope.provider,
                        kind: payload.kind,
                        issuedAt: at,
                        expiresAt: expiresAt,
                        dpopJKT: payload.dpopJKT
                    )
                )
            )
        }
        changes.append(.touchSession(sessionID: sessionID, at: at))
        return changes
    }

    /// `token.refreshed`: the spent token rotated, its successor issued in the same family, the session touched.
    private static func refreshedChanges(
        for event: DecodedEvent,
        sessionID: UUID,
        userID: UUID
    ) throws -> [ProjectionChange] {
        let envelope = event.envelope
        let at = envelope.occurredAt
        let payload = try event.payload(as: TokenRefreshed.self)
        guard let hash = Hex.decode(payload.newTokenHash) else { return [] }
        return [
            .rotateRefreshToken(tokenID: payload.oldTokenID, sessionID: sessionID, at: at),
            .issueRefreshToken(
                RefreshTokenRow(
                    tokenHash: hash,
                    tokenID: payload.newTokenID,
                    familyID: payload.familyID,
                    parentID: payload.oldTokenID,
                    sessionID: sessionID,
                    userID: userID,
                    provider: envelope.provider,
                    kind: payload.kind,
                    issuedAt: at,
                    expiresAt: payload.refreshTokenExpiresAt,
                    dpopJKT: payload.dpopJKT
                )
            ),
            .touchSession(sessionID: sessionID, at: at),
        ]
    }

    private static func endingChanges(for event: DecodedEvent) throws -> [ProjectionChange] {
        let envelope = event.envelope
        let at = envelope.occurredAt
        guard let userID = envelope.userID else { return [] }
        switch envelope.type {
        case .sessionLoggedOut:
            let payload = try event.payload(as: SessionLoggedOut.self)
            guard let sessionID = envelope.sessionID else { return [] }
            if payload.scope == .all {
                return [
                    .endUserSessions(
                        userID: userID,
                        provider: nil,
                        state: .loggedOut,
                        reason: SessionEndReason.logoutAll.rawValue,
                        at: at
                    ),
                    .revokeUserTokens(userID: userID, provider: nil, reason: SessionEndReason.logout.rawValue, at: at),
                ]
            }
            return [
                .endSession(sessionID: sessionID, state: .loggedOut, reason: SessionEndReason.logout.rawValue, at: at),
                .revokeSessionTokens(sessionID: sessionID, reason: SessionEndReason.logout.rawValue, at: at),
            ]
        case .sessionRevoked:
            let payload = try event.payload(as: SessionRevoked.self)
            guard let sessionID = envelope.sessionID else { return [] }
            return [
                .endSession(sessionID: sessionID, state: .revoked, reason: payload.reason.rawValue, at: at),
                .revokeSessionTokens(sessionID: sessionID, reason: payload.reason.rawValue, at: at),
            ]
        case .sessionExpired:
            let payload = try event.payload(as: SessionExpired.self)
            guard let sessionID = envelope.sessionID else { return [] }
            return [
                .endSession(sessionID: sessionID, state: .expired, reason: payload.limit.rawValue, at: at),
                .revokeSessionTokens(sessionID: sessionID, reason: "expired", at: at),
            ]
        case .providerConsentRevoked:
            let reason = SessionEndReason.providerConsentRevoked.rawValue
            return [
                .endUserSessions(userID: userID, provider: envelope.provider, state: .revoked, reason: reason, at: at),
                .revokeUserTokens(userID: userID, provider: envelope.provider, reason: reason, at: at),
            ]
        case .accountDeleted:
            let reason = SessionEndReason.accountDeleted.rawValue
            return [
                .deleteUser(userID: userID, at: at),
                .releaseUserIdentities(userID: userID, at: at),
                .endUserSessions(userID: userID, provider: nil, state: .revoked, reason: reason, at: at),
                .revokeUserTokens(userID: userID, provider: nil, reason: reason, at: at),
            ]
        default:
            return []
        }
    }
}

/// An event with its payload, decoded at most once.
private struct DecodedEvent {
    let envelope: EventEnvelope
    let decoded: (any EventPayload)?

    func payload<Payload: EventPayload>(as type: Payload.Type) throws -> Payload {
        if let payload = self.decoded as? Payload { return payload }
        return try self.envelope.payload(as: type)
    }
}
