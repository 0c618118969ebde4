import AuthlogAccounts
import AuthlogStore
import Hummingbird

extension OperatorAccess {
    /// The caller of an operator or auditor route: the request's metadata and, when its bearer key is an
    /// unrevoked key of `scope`, its actor (`key:NAME`). Otherwise the refusal is recorded and thrown
    /// (``authorize(bearer:scope:what:metadata:)``).
    func caller(
        of request: Request,
        context: AppRequestContext,
        reader: RequestMetadataReader,
        scope: APIKeyScope,
        what: String
    ) async throws(ServiceError) -> (actor: String, metadata: RequestMetadata) {
        let metadata = reader.metadata(of: request, context: context)
        let actor = try await self.authorize(
            bearer: TokenController.bearer(request),
            scope: scope,
            what: what,
            metadata: metadata
        )
        return (actor, metadata)
    }
}
