import AuthlogAccounts
import AuthlogCore
import AuthlogStore
import Foundation
import Hummingbird

/// What operators do to sessions: `POST /v1/sessions/{id}/revoke` and `POST /v1/users/{id}/revoke` (scope
/// `admin`) record `session.revoked` with reason `admin` naming the key as actor; `GET
/// /v1/users/{id}/sessions` (scope `audit`) lists a user's sessions and is recorded as `audit.accessed`;
/// `POST /v1/admin/identities/unlock` (scope `admin`) lifts an identity's lock (`identity.unlocked`).
struct AdminController: Sendable {
    let access: OperatorAccess
    let dependencies: ServiceDependencies
    let requestMetadata: RequestMetadataReader
    /// The unlock body is two short strings: 4 KiB is plenty.
    private let unlockBody = RequestBodyReader(limit: 4096)

    func register(on routes: inout RouteTable) {
        routes.add(.post, "/v1/sessions/{id}/revoke", use: self.revokeSession)
        routes.add(.post, "/v1/users/{id}/revoke", use: self.revokeUser)
        routes.add(.get, "/v1/users/{id}/sessions", use: self.sessions)
        routes.add(.post, "/v1/admin/identities/unlock", use: self.unlockIdentity)
    }

    /// `{"provider", "subject_hash"}` → `{"provider", "subject_hash", "unlocked": true|false}`: true when a
    /// lock in force was lifted (`identity.unlocked`, cause `operator`, naming the key); false, with nothing
    /// but the access recorded, when the identity was not locked. 400 for a bad body.
    @Sendable func unlockIdentity(_ request: Request, context: AppRequestContext) async throws -> Response {
        let what = "unlock identity"
        let (actor, metadata) = try await self.access.caller(
            of: request,
            context: context,
            reader: self.requestMetadata,
            scope: .admin,
            what: what
        )
        let provider: String
        let subjectHash: String
        do {
            let document = try await self.unlockBody.jsonObject(of: request)
            guard let name = try document.optionalString("provider"), IdentityLocks.isProviderName(name) else {
                throw RequestBodyReader.Refusal.malformed("provider must be a provider name.")
            }
            guard let hash = try document.optionalString("subject_hash"), IdentityLocks.isSubjectHash(hash) else {
                throw RequestBodyReader.Refusal.malformed("subject_hash must be 64 lowercase hexadecimal digits.")
            }
            (provider, subjectHash) = (name, hash)
        } catch let refusal as RequestBodyReader.Refusal {
            try await self.access.record(actor: actor, what: what, refusal: .invalidRequest, metadata: metadata)
            throw refusal.answer
        }
        let unlocked = try await IdentityLocks(dependencies: self.dependencies).unlock(
            provider: provider,
            subjectHash: subjectHash,
            actor: actor,
            metadata: metadata
        )
        if !unlocked {
            // Nothing was lifted, so no identity.unlocked names the caller: the request is recorded instead.
            try await self.access.record(
                actor: actor,
                what: "\(what) provider=\(provider) subject_hash=\(subjectHash): not locked",
                metadata: metadata
            )
        }
        return JSONResponse.make(
            .object([
                ("provider", .string(provider)), ("subject_hash", .string(subjectHash)), ("unlocked", .bool(unlocked)),
            ])
        )
    }

    /// → `{"session_id", "revoked": true|false, "state"}`; false when it had already ended. 404 `not_found`.
    @Sendable func revokeSession(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (actor, metadata, sessionID) = try await self.caller(
            request,
            context,
            scope: .admin,
            what: "revoke session"
        )
        guard
            let session = try await self.dependencies.storeCall({
                try await self.dependencies.queries.session(sessionID)
            })
        else {
            try await self.access.record(
                actor: actor,
                what: "revoke session \(sessionID.lowercased)",
                refusal: .invalidRequest,
                metadata: metadata
            )
            throw ServiceError(.notFound, "not_found", "No session has this id.")
        }
        let ended = try await SessionEnder(dependencies: self.dependencies).endSessions(
            of: session.userID,
            provider: nil,
            onlySession: sessionID,
            reason: .admin,
            actor: actor,
            metadata: metadata
        )
        if ended == 0 {
            // Nothing changed, so no session.revoked names the caller: what it read is recorded instead.
            try await self.access.record(
                actor: actor,
                what: "revoke session \(sessionID.lowercased): already ended",
                metadata: metadata
            )
        }
        let state = ended > 0 ? SessionState.revoked.rawValue : session.state.rawValue
        return JSONResponse.make(
            .object([
                ("session_id", .string(sessionID.lowercased)), ("revoked", .bool(ended > 0)), ("state", .string(state)),
            ])
        )
    }

    /// → `{"user_id", "sessions_revoked": N}`: every active session of the user ended. 404 for an unknown user.
    @Sendable func revokeUser(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (actor, metadata, userID) = try await self.caller(request, context, scope: .admin, what: "revoke user")
        try await self.requireKnownUser(userID, actor: actor, what: "revoke user", metadata: metadata)
        let ended = try await SessionEnder(dependencies: self.dependencies).endSessions(
            of: userID,
            provider: nil,
            reason: .admin,
            actor: actor,
            metadata: metadata
        )
        if ended == 0 {
            try await self.access.record(
                actor: actor,
                what: "revoke user \(userID.lowercased): no active session",
                metadata: metadata
            )
        }
        return JSONResponse.make(
            .object([("user_id", .string(userID.lowercased)), ("sessions_revoked", .number(String(ended)))])
        )
    }

    /// → `{"user_id", "sessions": [{"session_id", "provider", "state", "end_reason", "started_at", "last_seen_at",
    /// "kind"}]}`, newest first.
    @Sendable func sessions(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (actor, metadata, userID) = try await self.caller(request, context, scope: .audit, what: "sessions")
        try await self.requireKnownUser(userID, actor: actor, what: "sessions", metadata: metadata)
        let (sessions, lag) = try await self.dependencies.storeCall {
            try await self.access.read { try await SessionQueries.sessions(of: userID, on: $0) }
        }
        try await self.access.record(
            actor: actor,
            what: "sessions user_id=\(userID.lowercased)",
            lag: lag,
            metadata: metadata
        )
        return JSONResponse.make(
            .object([
                ("user_id", .string(userID.lowercased)),
                ("sessions", .array(sessions.map(\.summaryJSON))),
            ])
        )
    }

    /// The authorized caller and the `{id}` of the path as a UUID; a bad id is recorded as a refusal and
    /// answered 400.
    private func caller(
        _ request: Request,
        _ context: AppRequestContext,
        scope: APIKeyScope,
        what: String
    ) async throws(ServiceError) -> (actor: String, metadata: RequestMetadata, id: UUID) {
        let (actor, metadata) = try await self.access.caller(
            of: request,
            context: context,
            reader: self.requestMetadata,
            scope: scope,
            what: what
        )
        guard let text = context.parameters.get("id"), text.utf8.count == 36, let id = UUID(uuidString: text) else {
            try await self.access.record(actor: actor, what: what, refusal: .invalidRequest, metadata: metadata)
            throw ServiceError.badRequest("The id in the path must be a UUID.")
        }
        return (actor, metadata, id)
    }

    /// Throws 404 `not_found` (recorded) when no user has this id.
    private func requireKnownUser(
        _ userID: UUID,
        actor: String,
        what: String,
        metadata: RequestMetadata
    ) async throws(ServiceError) {
        let known = try await self.dependencies.storeCall {
            try await self.dependencies.queries.userExists(userID)
        }
        guard known else {
            try await self.access.record(
                actor: actor,
                what: "\(what) user_id=\(userID.lowercased)",
                refusal: .invalidRequest,
                metadata: metadata
            )
            throw ServiceError(.notFound, "not_found", "No user has this id.")
        }
    }
}

extension SessionRecord {
    /// The session as the operator routes and `authlog sessions` show it.
    var summaryJSON: JSONValue {
        var members: [(name: String, value: JSONValue)] = [
            ("session_id", .string(self.sessionID.lowercased)),
            ("provider", .string(self.provider)),
            ("state", .string(self.state.rawValue)),
            ("kind", .string(self.kind.rawValue)),
            ("started_at", .string(self.startedAt.description)),
            ("last_seen_at", .string(self.lastSeenAt.description)),
        ]
        members.append(("end_reason", self.endReason.map { .string($0) } ?? .null))
        if let clientID = self.clientID { members.append(("client_id", .string(clientID))) }
        return .object(members)
    }
}
