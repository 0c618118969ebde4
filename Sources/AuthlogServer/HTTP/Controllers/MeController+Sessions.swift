import AuthlogAccounts
import AuthlogCore
import Hummingbird

/// The signed-in user's own sessions and activity: `GET /v1/me/sessions`, `DELETE /v1/me/sessions/{id}`,
/// `POST /v1/me/sessions/revoke-others`, `GET /v1/me/activity` and `POST /v1/me/activity/{event_id}/not-me`.
/// The rules are ``AccountService``'s; each read is recorded as `audit.accessed` with actor `user:<id>`.
extension MeController {
    func registerSessionRoutes(on routes: inout RouteTable) {
        routes.add(.get, "/v1/me/sessions", use: self.sessions)
        routes.add(.post, "/v1/me/sessions/revoke-others", use: self.revokeOthers)
        routes.add(.delete, "/v1/me/sessions/{id}", use: self.endSession)
        // The literal segment above would otherwise take this path and answer 405: as an id it is malformed,
        // which is 404 `not_found` like any other.
        routes.add(.delete, "/v1/me/sessions/revoke-others", documentedAs: "/v1/me/sessions/{id}", use: self.endSession)
        routes.add(.get, "/v1/me/activity", use: self.activity)
        routes.add(.post, "/v1/me/activity/{event_id}/not-me", use: self.notMe)
    }

    /// → `{"sessions": [{"session_id", "provider", "user_agent", "ip", "started_at", "last_refreshed_at",
    /// "current"}]}`, newest first.
    @Sendable func sessions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bearer = try Self.bearer(request)
        let (current, details) = try await self.service.ownSessions(
            bearer: bearer,
            metadata: self.requestMetadata.metadata(of: request, context: context)
        )
        let sessions = details.map { detail -> JSONValue in
            .object([
                ("session_id", .string(detail.session.sessionID.lowercased)),
                ("provider", .string(detail.session.provider)),
                ("user_agent", detail.userAgent.map { .string($0) } ?? .null),
                ("ip", detail.ip.map { .string($0.description) } ?? .null),
                ("started_at", .string(detail.session.startedAt.description)),
                ("last_refreshed_at", detail.lastRefreshedAt.map { .string($0.description) } ?? .null),
                ("current", .bool(detail.session.sessionID == current)),
            ])
        }
        return JSONResponse.make(.object([("sessions", .array(sessions))]))
    }

    /// → 204; 404 `not_found` for a session id that is not one of the caller's active sessions.
    @Sendable func endSession(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bearer = try Self.bearer(request)
        try await self.service.endOwnSession(
            bearer: bearer,
            sessionID: context.parameters.get("id") ?? "",
            metadata: self.requestMetadata.metadata(of: request, context: context)
        )
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    /// → `{"revoked": N}`: every other active session of the caller's ended.
    @Sendable func revokeOthers(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bearer = try Self.bearer(request)
        let revoked = try await self.service.revokeOtherSessions(
            bearer: bearer,
            metadata: self.requestMetadata.metadata(of: request, context: context)
        )
        return JSONResponse.make(.object([("revoked", .number(String(revoked)))]))
    }

    /// → `{"sessions_ended": [id, …]}`: the entry was reported as not the user's, and every active session of
    /// theirs ended, the caller's own included; 404 `not_found` for an id that is not an entry of the caller's
    /// activity.
    @Sendable func notMe(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bearer = try Self.bearer(request)
        let ended = try await self.service.reportNotMe(
            bearer: bearer,
            eventID: context.parameters.get("event_id") ?? "",
            metadata: self.requestMetadata.metadata(of: request, context: context)
        )
        return JSONResponse.make(.object([("sessions_ended", .array(ended.map { .string($0.lowercased) }))]))
    }

    /// `?after=&limit=` → `{"activity": [{"event_id", "type", "time", "provider", "ip", "user_agent",
    /// "outcome", "position", "receipt_url", "reason", "alert"?}], "next": cursor|null}`, newest first;
    /// `position` is the event's place in the log, null until it is sealed; `alert` marks a sign-in judged
    /// unusual (`signin.flagged`): which sign-in, what was unusual, what was done.
    @Sendable func activity(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bearer = try Self.bearer(request)
        let (records, next) = try await self.service.ownActivity(
            bearer: bearer,
            parameters: request.uri.queryParameters.map { (String($0.key), String($0.value)) },
            metadata: self.requestMetadata.metadata(of: request, context: context)
        )
        let activity = records.map { record -> JSONValue in
            let id = record.eventID.lowercased
            return .object(
                [
                    ("event_id", .string(id)),
                    ("type", .string(record.type.rawValue)),
                    ("time", .string(record.occurredAt.description)),
                    ("provider", record.provider.map { .string($0) } ?? .null),
                    ("ip", record.ip.map { .string($0.description) } ?? .null),
                    ("user_agent", record.userAgent.map { .string($0) } ?? .null),
                    ("outcome", .string(record.outcome.rawValue)),
                    ("position", record.logPosition.map { .number(String($0)) } ?? .null),
                    ("receipt_url", .string("/v1/log/receipt/\(id)")),
                    ("reason", record.reason.map { .string($0) } ?? .null),
                ] + (record.alert.map { [("alert", $0)] } ?? [])
            )
        }
        return JSONResponse.make(
            .object([("activity", .array(activity)), ("next", next.map { .string($0.text) } ?? .null)])
        )
    }
}
