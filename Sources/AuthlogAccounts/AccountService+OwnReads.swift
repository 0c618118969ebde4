public import AuthlogCore
public import Foundation

extension AccountService {
    /// `GET /v1/me/sessions`: the caller's usable sessions (active, within their lifetimes), newest first, and
    /// the id of the caller's own. The read is recorded as `audit.accessed` with actor `user:<id>`.
    /// - Throws: ``ServiceError`` 401 for a bad bearer, 503 when the database is down.
    public func ownSessions(
        bearer: String,
        metadata: RequestMetadata
    ) async throws(ServiceError) -> (current: UUID, sessions: [SessionDetail]) {
        let (_, session) = try await self.tokens.authenticate(bearer: bearer)
        let now = Timestamp.now()
        let details = try await self.dependencies.storeCall {
            try await self.dependencies.ownAccount.activeSessionDetails(of: session.userID)
        }.filter { $0.session.isUsable && self.tokens.passedLimit(of: $0.session, at: now) == nil }
        try await self.recordOwnRead(of: session, what: "me sessions", metadata: metadata)
        return (session.sessionID, details)
    }

    /// `GET /v1/me/activity`: one page of the caller's own events (``EventType/userActivity``), newest first,
    /// and the cursor of the next page (`nil` on the last). The read, or a refused query, is recorded as
    /// `audit.accessed` with actor `user:<id>`.
    /// - Throws: ``ServiceError`` 401 for a bad bearer, 400 `invalid_request` for a bad query, 503 when the
    ///   database is down.
    public func ownActivity(
        bearer: String,
        parameters: [(name: String, value: String)],
        metadata: RequestMetadata
    ) async throws(ServiceError) -> (records: [ActivityRecord], next: ActivityCursor?) {
        let (_, session) = try await self.tokens.authenticate(bearer: bearer)
        let query: ActivityQuery
        do throws(ServiceError) {
            query = try ActivityQuery(parameters: parameters)
        } catch {
            try await self.recordOwnRead(of: session, what: "me activity", refusal: error.code, metadata: metadata)
            throw error
        }
        let rows = try await self.dependencies.storeCall {
            try await self.dependencies.ownAccount.activity(
                of: session.userID,
                types: EventType.userActivity,
                before: query.after?.position,
                limit: query.limit + 1
            )
        }
        try await self.recordOwnRead(of: session, what: query.summary, metadata: metadata)
        let page = Array(rows.prefix(query.limit))
        let next = rows.count > query.limit ? page.last.map { ActivityCursor($0.position) } : nil
        return (page, next)
    }

    /// The actor a user's own reads are recorded with: `user:<id>`.
    static func actor(of userID: UUID) -> String { "user:" + userID.lowercased }

    /// Records one of the user's own reads (or a refused one, with `refusal` as its reason) as
    /// `audit.accessed`, committed before the answer.
    func recordOwnRead(
        of session: SessionRecord,
        what: String,
        refusal: String? = nil,
        metadata: RequestMetadata
    ) async throws(ServiceError) {
        let event = try self.dependencies.event(
            metadata,
            stream: StreamName(category: "audit", id: "access"),
            outcome: refusal == nil ? .success : .failure,
            reason: refusal,
            at: .now(),
            data: AuditAccessed(actor: Self.actor(of: session.userID), query: what)
        )
        try await self.dependencies.append(AppendCommand(event))
    }
}
