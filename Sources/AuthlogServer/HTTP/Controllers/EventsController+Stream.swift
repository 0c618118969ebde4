import AuthlogAccounts
import AuthlogPostgres
import AuthlogStore
import Hummingbird

extension EventsController {
    /// `?after=&type=&user_id=&provider=&format=` → `application/x-ndjson`: every sealed event after `after`
    /// that matches, up to the head when the request came (`Authlog-Head`), one line each, in one answer. The
    /// read is recorded once (`audit.accessed`, `export_stream after=… through=…`) before the first line goes
    /// out. A consumer that got the whole answer resumes from `Authlog-Head`; one whose answer was cut resumes
    /// after the last line's `position`. One stream per key at a time (another is 429 `rate_limited`) and
    /// ``ExportStreamSlots/limit`` in the process (another is 503 `streams_busy`).
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
        let key = OperatorAccess.keyName(ofActor: actor)
        let slot: ExportStreamSlot
        switch ExportStreamSlot.take(of: self.streams, key: key) {
        case .success(let taken): slot = taken
        case .failure(let busy):
            throw self.access.limiter.busyRefusal(
                apiKey: key,
                route: "events_stream",
                serverWide: busy == .server,
                requestID: context.requestID
            )
        }
        let head: Int64
        let lag: ReplicaLag?
        do {
            // A cursor beyond a replica's head may be one the primary has: `.outOfRange` sends the read there.
            (head, lag) = try await self.access.read { connection in
                let head = try await EventReader().sealedHead(on: connection)
                guard query.after <= head else {
                    throw StoreError(
                        .outOfRange,
                        "The log ends at position \(head); the cursor \(query.after) lies beyond it."
                    )
                }
                return head
            }
        } catch let error as StoreError where error.code == .outOfRange {
            try await self.access.record(actor: actor, what: what, refusal: .invalidRequest, metadata: metadata)
            throw ServiceError(.badRequest, "out_of_range", error.message)
        } catch {
            throw ServiceError.failure(error)
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
