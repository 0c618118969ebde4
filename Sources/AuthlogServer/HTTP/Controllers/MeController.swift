import AuthlogAccounts
import AuthlogCore
import AuthlogProviders
import Hummingbird

/// The signed-in user's own routes: `POST /v1/me/credential-state`, `POST /v1/me/reauthenticate`,
/// `POST|DELETE /v1/me/identities/{provider}`, `DELETE /v1/me`, and their sessions and activity
/// (`MeController+Sessions.swift`).
struct MeController: Sendable {
    let service: AccountService
    let body: RequestBodyReader
    let requestMetadata: RequestMetadataReader

    func register(on routes: inout RouteTable) {
        routes.add(.post, "/v1/me/credential-state", use: self.credentialState)
        routes.add(.post, "/v1/me/reauthenticate", use: self.reauthenticate)
        routes.add(.post, "/v1/me/identities/{provider}", use: self.link)
        routes.add(.delete, "/v1/me/identities/{provider}", use: self.unlink)
        routes.add(.delete, "/v1/me", use: self.delete)
        self.registerSessionRoutes(on: &routes)
    }

    @Sendable func credentialState(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bearer = try Self.bearer(request)
        let metadata = self.requestMetadata.metadata(of: request, context: context)
        let (provider, state): (String, CredentialState)
        do {
            let document = try await self.body.jsonObject(of: request)
            guard let name = try document.optionalString("provider"), !name.isEmpty else {
                throw RequestBodyReader.Refusal.malformed("provider is required.")
            }
            guard let parsed = try document.optionalString("state").flatMap(CredentialState.init(rawValue:)) else {
                throw RequestBodyReader.Refusal.malformed("state must be authorized, revoked or not_found.")
            }
            (provider, state) = (name, parsed)
        } catch let refusal as RequestBodyReader.Refusal {
            throw await self.refuse(bearer, .credentialState, refusal, metadata)
        }
        try await self.service.reportCredentialState(
            bearer: bearer,
            provider: provider,
            state: state,
            metadata: metadata
        )
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    @Sendable func reauthenticate(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bearer = try Self.bearer(request)
        let metadata = self.requestMetadata.metadata(of: request, context: context)
        let (provider, proof): (String, SigninProof)
        do {
            let document = try await self.body.jsonObject(of: request)
            guard let name = try document.optionalString("provider"), !name.isEmpty else {
                throw RequestBodyReader.Refusal.malformed("provider is required.")
            }
            (provider, proof) = (name, try SigninController.proof(from: document, clientID: nil))
        } catch let refusal as RequestBodyReader.Refusal {
            throw await self.refuse(bearer, .reauthenticate, refusal, metadata)
        }
        let at = try await self.service.reauthenticate(
            bearer: bearer,
            provider: provider,
            proof: proof,
            metadata: metadata
        )
        return JSONResponse.make(.object([("authenticated_at", .string(at.description))]))
    }

    @Sendable func link(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bearer = try Self.bearer(request)
        let provider = context.parameters.get("provider") ?? ""
        let metadata = self.requestMetadata.metadata(of: request, context: context)
        let proof: SigninProof
        do {
            proof = try SigninController.proof(from: try await self.body.jsonObject(of: request), clientID: nil)
        } catch let refusal as RequestBodyReader.Refusal {
            throw await self.refuse(bearer, .linkIdentity, refusal, metadata)
        }
        try await self.service.link(bearer: bearer, provider: provider, proof: proof, metadata: metadata)
        return JSONResponse.make(.object([("provider", .string(provider)), ("linked", .bool(true))]))
    }

    @Sendable func unlink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bearer = try Self.bearer(request)
        let provider = context.parameters.get("provider") ?? ""
        try await self.service.unlink(
            bearer: bearer,
            provider: provider,
            metadata: self.requestMetadata.metadata(of: request, context: context)
        )
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bearer = try Self.bearer(request)
        let results = try await self.service.deleteAccount(
            bearer: bearer,
            metadata: self.requestMetadata.metadata(of: request, context: context)
        )
        let revocations = results.sorted { $0.key < $1.key }.map {
            (name: $0.key, value: JSONValue.string($0.value.rawValue))
        }
        return JSONResponse.make(
            .object([("status", .string("deleted")), ("provider_revocations", .object(revocations))]),
            status: .accepted
        )
    }

    private func refuse(
        _ bearer: String,
        _ action: AccountAction,
        _ refusal: RequestBodyReader.Refusal,
        _ metadata: RequestMetadata
    ) async -> ServiceError {
        await self.service.refuseUnreadable(
            bearer: bearer,
            action: action,
            reason: refusal.reason,
            answer: refusal.answer,
            metadata: metadata
        )
    }

    /// The bearer token, or 401 `invalid_token`.
    static func bearer(_ request: Request) throws(ServiceError) -> String {
        guard let bearer = TokenController.bearer(request), !bearer.isEmpty else {
            throw ServiceError.missingAccessToken("Send the access token as Authorization: Bearer.")
        }
        return bearer
    }
}
