import AuthlogAccounts
import AuthlogCore
import AuthlogStore
import Foundation
import Hummingbird
import NIOCore

/// `GET /v1/reports/{kind}?since=&until=&by=&format=json|csv` (scope `audit`): the numbers of
/// `authlog report`, read from the roll-ups. Every report served, and every refused attempt, is recorded as
/// `audit.accessed` before the answer goes out.
struct ReportsController: Sendable {
    let access: OperatorAccess
    let requestMetadata: RequestMetadataReader

    func register(on routes: inout RouteTable) {
        routes.add(.get, "/v1/reports/{kind}", use: self.report)
    }

    /// → the report as JSON (``ReportText/json(_:)``) or, with `format=csv`, as `text/csv`. A bad parameter
    /// is 400 `invalid_request`.
    @Sendable func report(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (actor, metadata) = try await self.access.caller(
            of: request,
            context: context,
            reader: self.requestMetadata,
            scope: .audit,
            what: "report"
        )
        let parameters = request.uri.queryParameters
        let query: ReportQuery
        let csv: Bool
        do {
            let format = parameters["format"].map(String.init) ?? "json"
            guard format == "json" || format == "csv" else {
                throw ReportRequest.Problem(description: "format must be json or csv")
            }
            csv = format == "csv"
            query = try ReportRequest.query(
                kind: context.parameters.get("kind") ?? "",
                since: parameters["since"].map(String.init),
                until: parameters["until"].map(String.init),
                by: parameters["by"].map(String.init)
            )
        } catch let problem as ReportRequest.Problem {
            try await self.access.record(actor: actor, what: "report", refusal: .invalidRequest, metadata: metadata)
            throw ServiceError(.badRequest, "invalid_request", problem.description + ".")
        }
        let report: Report
        let lag: ReplicaLag?
        do {
            (report, lag) = try await self.access.read { try await query.run(on: $0) }
        } catch {
            throw ServiceError.failure(error)
        }
        try await self.access.record(
            actor: actor,
            what: ReportRequest.summary(of: query),
            lag: lag,
            metadata: metadata
        )
        guard csv else { return JSONResponse.make(ReportText.json(report)) }
        return Response(
            status: .ok,
            headers: [.contentType: "text/csv; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: ReportText.csv(report)))
        )
    }
}
