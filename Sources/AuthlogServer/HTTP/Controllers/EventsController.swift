import AuthlogCore
import AuthlogStore
import Foundation
import Hummingbird

/// `GET /v1/events` (scope `audit`): sealed events in position order with a cursor to resume from, for
/// SIEMs and auditors. Every page read, and every refused attempt, is recorded as `audit.accessed` before
/// the answer goes out.
struct EventsController: Sendable {
    let access: OperatorAccess
    let pool: ConnectionPool
    let requestMetadata: RequestMetadataReader

    func register(on routes: inout RouteTable) {
        routes.add(.get, "/v1/events", use: self.export)
    }

    /// `?after=&limit=&type=&user_id=&provider=` → `{"events": […], "next": N, "head": H}`.
    @Sendable func export(_ request: Request, context: AppRequestContext) async throws -> Response {
        let metadata = self.requestMetadata.metadata(of: request, context: context)
        let actor = try await self.access.authorize(
            bearer: TokenController.bearer(request),
            scope: .audit,
            what: "export",
            metadata: metadata
        )
        let query: ExportQuery
        do {
            query = try ExportQuery(
                parameters: request.uri.queryParameters.map { (String($0.key), String($0.value)) }
            )
        } catch {
            try await self.access.record(actor: actor, what: "export", refusal: .invalidRequest, metadata: metadata)
            throw error
        }
        let page: ExportPage
        do {
            page = try await self.pool.withConnection { connection in
                try await EventReader().page(
                    after: query.after,
                    limit: query.limit,
                    filter: query.filter,
                    on: connection
                )
            }
        } catch let error as StoreError where error.code == .outOfRange {
            try await self.access.record(actor: actor, what: "export", refusal: .invalidRequest, metadata: metadata)
            throw ServiceError(.badRequest, "out_of_range", error.message)
        } catch {
            throw ServiceError.failure(error)
        }
        try await self.access.record(actor: actor, what: query.summary(next: page.next), metadata: metadata)
        return JSONResponse.make(
            .object([
                ("events", .array(page.events.map(\.exportJSON))),
                ("next", .number(String(page.next))),
                ("head", .number(String(page.head))),
            ])
        )
    }
}
