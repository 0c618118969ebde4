import AuthlogAccounts
import AuthlogCore
import AuthlogProviders
import Hummingbird

/// `POST /v1/nonces` and `POST /v1/signin/{provider}`.
struct SigninController: Sendable {
    let service: SigninService
    let body: RequestBodyReader
    let requestMetadata: RequestMetadataReader

    func register(on routes: inout RouteTable) {
        routes.add(.post, "/v1/nonces", use: self.issueNonce)
        routes.add(.post, "/v1/signin/{provider}", use: self.signIn)
    }

    @Sendable func issueNonce(_ request: Request, context: AppRequestContext) async throws -> Response {
        let nonce = try await self.service.issueNonce()
        return JSONResponse.make(
            .object([("nonce", .string(nonce.nonce)), ("expires_at", .string(nonce.expiresAt.description))])
        )
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let provider = context.parameters.get("provider") ?? ""
        var metadata = self.requestMetadata.metadata(of: request, context: context)
        let proof: SigninProof
        let rememberMe: Bool
        do {
            let document = try await self.body.jsonObject(of: request)
            metadata.clientID = try document.optionalString("client_id").map { String($0.prefix(200)) }
            proof = try Self.proof(from: document, clientID: metadata.clientID)
            switch document["remember_me"] {
            case nil, .null?: rememberMe = true
            case .bool(let value)?: rememberMe = value
            default: throw RequestBodyReader.Refusal.malformed("remember_me must be a boolean.")
            }
        } catch let refusal as RequestBodyReader.Refusal {
            throw await self.service.refuseUnreadable(
                provider: provider,
                reason: refusal.reason,
                metadata: metadata,
                answer: refusal.answer
            )
        }
        let answer = try await self.service.signIn(
            provider: provider,
            proof: proof,
            rememberMe: rememberMe,
            metadata: metadata
        )
        return JSONResponse.make(answer.json)
    }

    /// The proof members of a sign-in body; Apple's `user` may come as an object or as JSON text
    /// (the web flow posts it as a string).
    /// - Throws: ``RequestBodyReader/Refusal``.
    static func proof(from document: JSONValue, clientID: String?) throws -> SigninProof {
        var user: JSONValue?
        switch document["user"] {
        case nil, .null?: user = nil
        case .string(let text)?: user = try? JSONParser(maximumDepth: 4).parse(text)
        case let value? where value.isObject: user = value
        default: throw RequestBodyReader.Refusal.malformed("user must be an object.")
        }
        let proof = SigninProof(
            idToken: try document.optionalString("id_token"),
            rawNonce: try document.optionalString("raw_nonce"),
            authorizationCode: try document.optionalString("authorization_code"),
            codeVerifier: try document.optionalString("code_verifier"),
            redirectURI: try document.optionalString("redirect_uri"),
            accessToken: try document.optionalString("access_token"),
            user: user,
            subject: try document.optionalString("subject"),
            clientID: clientID
        )
        return proof
    }
}
