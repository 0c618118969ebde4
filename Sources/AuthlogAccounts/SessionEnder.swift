public import AuthlogCore
public import Foundation

/// Ends a user's active sessions (all, or those with one provider) with `session.revoked`, together with
/// the events that say why (`provider.consent_revoked`, `identity.unlinked`, `account.deleted`, …), in one
/// command that expects each session stream's version: a refresh that commits meanwhile makes the command
/// read again (its new token then dies with the session), one that comes after finds the session ended, and
/// two concurrent callers end each session once.
public struct SessionEnder: Sendable {
    let dependencies: ServiceDependencies

    /// Creates an ender over the services' dependencies.
    public init(dependencies: ServiceDependencies) { self.dependencies = dependencies }

    /// Ends the sessions (or only `onlySession` of them, and only those `include` accepts), naming `actor`
    /// when an operator or the user asked, and appends `consent` (as `provider.consent_revoked`) and `extra`
    /// events of the same command. Returns how many sessions it ended; nothing is recorded when no session is
    /// active and there is no `extra` event (a repeated report).
    ///
    /// `provider.consent_revoked` ends every session of its provider in the projections, so it is left out
    /// when `include` leaves one of them alone (a late provider notice: the user consented again since).
    /// - Throws: ``ServiceError`` from the store, 409 when the sessions kept changing.
    @discardableResult
    public func endSessions(
        of userID: UUID,
        provider: String?,
        onlySession: UUID? = nil,
        reason: SessionEndReason,
        actor: String? = nil,
        consent: (source: ConsentRevocationSource, noticeID: String?)? = nil,
        extra: [EventEnvelope] = [],
        metadata: RequestMetadata,
        where include: (SessionRecord) -> Bool = { _ in true }
    ) async throws(ServiceError) -> Int {
        try await self.endSessionsListing(
            of: userID,
            provider: provider,
            onlySession: onlySession,
            reason: reason,
            actor: actor,
            consent: consent,
            extra: { _ throws(ServiceError) in extra },
            metadata: metadata,
            where: include
        ).count
    }

    /// ``endSessions(of:provider:onlySession:reason:actor:consent:extra:metadata:where:)``, with the `extra`
    /// events made from the ids of the sessions ended (lowercase, in the order of their `session.revoked`) and
    /// those ids returned: a report that names what it ended (`account.not_me_reported`).
    /// - Throws: ``ServiceError`` from the store or `extra`, 409 when the sessions kept changing.
    public func endSessionsListing(
        of userID: UUID,
        provider: String?,
        onlySession: UUID? = nil,
        reason: SessionEndReason,
        actor: String? = nil,
        consent: (source: ConsentRevocationSource, noticeID: String?)? = nil,
        extra: ([UUID]) throws(ServiceError) -> [EventEnvelope],
        metadata: RequestMetadata,
        where include: (SessionRecord) -> Bool = { _ in true }
    ) async throws(ServiceError) -> [UUID] {
        for _ in 0..<self.dependencies.settings.maximumAttempts {
            let reached = try await self.dependencies.storeCall {
                try await self.dependencies.queries.activeSessions(of: userID, provider: provider)
            }.filter { onlySession == nil || $0.session.sessionID == onlySession }
            let sessions = reached.filter { include($0.session) }
            let extraEvents = try extra(sessions.map(\.session.sessionID))
            guard !sessions.isEmpty || !extraEvents.isEmpty else { return [] }
            let now = Timestamp.now()
            var events: [EventEnvelope] = []
            var expectations: [StreamName: ExpectedVersion] = [:]
            for (session, version) in sessions {
                let event = try self.dependencies.event(
                    metadata,
                    stream: .session(session.sessionID),
                    reason: reason.rawValue,
                    provider: session.provider,
                    userID: userID,
                    sessionID: session.sessionID,
                    at: now,
                    data: SessionRevoked(reason: reason, actor: actor)
                )
                events.append(event)
                expectations[event.stream] = .exactly(version)
            }
            if let consent, let provider, sessions.count == reached.count {
                events.append(
                    try self.dependencies.event(
                        metadata,
                        stream: .user(userID),
                        provider: provider,
                        userID: userID,
                        at: now,
                        data: ProviderConsentRevoked(source: consent.source, providerEventID: consent.noticeID)
                    )
                )
            }
            events += extraEvents
            do {
                try await self.dependencies.store.append(AppendCommand(events: events, expectedVersions: expectations))
                return sessions.map(\.session.sessionID)
            } catch is WrongExpectedVersion {
                continue
            } catch {
                throw ServiceError.failure(error)
            }
        }
        throw ServiceError(.conflict, "conflict", "The sessions changed while they were being ended; try again.")
    }
}
