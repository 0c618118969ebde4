import Foundation

extension AuthlogClient {
    /// `GET /v1/me/sessions`: the user's active sessions, this one marked ``SessionInfo/isCurrent``.
    /// - Throws: ``AuthlogClientError``: `.signedOut`, `.transport`, authlog's code.
    public func sessions() async throws -> [SessionInfo] {
        try APIConnection.decode(SessionList.self, try await self.authorized("GET", "/v1/me/sessions")).sessions
    }

    /// `DELETE /v1/me/sessions/{id}`: ends one of the user's sessions (another device's). Ending this
    /// device's session signs this client out at its next request; prefer ``logout(_:)``.
    /// - Throws: ``AuthlogClientError``: `not_found` for an unknown session or another user's.
    public func revokeSession(id: String) async throws {
        _ = try await self.authorized(
            "DELETE",
            "/v1/me/sessions/\(Self.segment(id))",
            sessions: .only([id.lowercased()])
        )
    }

    /// `POST /v1/me/sessions/revoke-others`: ends every session of the user but this one.
    /// - Returns: how many sessions ended.
    /// - Throws: ``AuthlogClientError``: `.signedOut`, `.transport`, authlog's code.
    @discardableResult
    public func revokeOtherSessions() async throws -> Int {
        try APIConnection.decode(
            RevokedCount.self,
            try await self.authorized("POST", "/v1/me/sessions/revoke-others", sessions: .anyOfUser)
        ).revoked
    }

    /// `POST /v1/me/activity/{event_id}/not-me`: the user says an entry of their activity (an
    /// ``ActivityEntry/id``) was not them. authlog ends every session of theirs, this one too, and records
    /// the report; the tokens are cleared here and ``SignOutReason/reportedNotMe`` is sent.
    /// - Returns: the ids of the sessions that ended.
    /// - Throws: ``AuthlogClientError``: `not_found` for an id that is not an entry of the user's activity,
    ///   `.signedOut`, `.transport`.
    @discardableResult
    public func reportNotMe(eventID: String) async throws -> [String] {
        let data = try await self.authorized(
            "POST",
            "/v1/me/activity/\(Self.segment(eventID))/not-me",
            sessions: .anyOfUser
        )
        let ended = try APIConnection.decode(EndedSessions.self, data).sessionsEnded
        await self.keeper.end(.reportedNotMe)
        return ended
    }

    /// `GET /v1/me/activity`: one page of the user's account activity, newest first.
    /// - Parameters:
    ///   - cursor: ``ActivityPage/next`` of the previous page, or `nil` for the newest.
    ///   - limit: the most entries wanted, or `nil` for the server's default.
    /// - Returns: the entries and the cursor of the next page.
    /// - Throws: ``AuthlogClientError``: `.signedOut`, `.transport`, authlog's code.
    public func activity(after cursor: String? = nil, limit: Int? = nil) async throws -> ActivityPage {
        var query: [URLQueryItem] = []
        if let cursor { query.append(URLQueryItem(name: "after", value: cursor)) }
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        return try APIConnection.decode(
            ActivityPage.self,
            try await self.authorized("GET", "/v1/me/activity", query: query)
        )
    }
}

/// `{"sessions": [...]}`.
private struct SessionList: Decodable {
    let sessions: [SessionInfo]
}

/// `{"sessions_ended": [...]}`.
private struct EndedSessions: Decodable {
    let sessionsEnded: [String]

    enum CodingKeys: String, CodingKey {
        case sessionsEnded = "sessions_ended"
    }
}

/// `{"revoked": n}`.
private struct RevokedCount: Decodable {
    let revoked: Int
}
