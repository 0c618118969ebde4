import AuthlogAccounts
import AuthlogStore
import Hummingbird

extension EventsController {
    /// `?after=&type=&user_id=&provider=&format=` → `application/x-ndjson`: every sealed event after `after`
    /// that matches, up to the head when the request came (`Authlog-Head`), one line each, in one answer. The
    /// read is recorded once (`audit.accessed`, `export_stream after=… through=…`) before the first line goes
    /// out. A consumer that got the whole answer resumes from `Authlog-Head`; one whose answer was cut resumes
    /// after the last line's `position`. At most ``ExportStreamSlots/limit`` streams run at once; the next is
    /// refused with 429 `rate_limited`.
    @Sendable func exportStream(_ request: Request, context: AppRequestContext) async throws -> Response {
        let what = "export_stream"
        let (actor, metadata) = try await self.access.caller(
            of: request,
            context: context,
            reader: self.requestMetadata,
            scope: .audit,
            what: what
        )
        let query: ExportQuery
        do {
            query = try ExportQuery(
                parameters: request.uri.queryParameters.map { (String($0.key), String($0.value)) },
                streaming: true
            )
        } catch {
            try await self.access.record(actor: actor, what: what, refusal: .invalidRequest, metadata: metadata)
            throw error
        }
        guard let slot = ExportStreamSlot(of: self.streams) else {
            throw self.access.limiter.busyRefusal(
                apiKey: OperatorAccess.keyName(ofActor: actor),
                route: "events_stream",
                requestID: context.requestID
            )
        }
        let head: Int64
        let lag: ReplicaLag?
        do {
            (head, lag) = try await self.access.read { try await EventReader().sealedHead(on: $0) }
        } catch {
            throw ServiceError.failure(error)
        }
        guard query.after <= head else {
            try await self.access.record(actor: actor, what: what, refusal: .invalidRequest, metadata: metadata)
            throw ServiceError(
                .badRequest,
                "out_of_range",
                "The log ends at position \(head); the cursor \(query.after) lies beyond it."
            )
        }
        try await self.access.record(actor: actor, what: query.summary(next: head), lag: lag, metadata: metadata)
        let stream = ExportStream(access: self.access, query: query, through: head, slot: slot, logger: context.logger)
        return Response(
            status: .ok,
            headers: [.contentType: "application/x-ndjson", .cacheControl: "no-store", .exportHead: String(head)],
            body: ResponseBody { writer in try await stream.write(to: &writer) }
        )
    }
}
