import AuthlogAccounts
import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import Foundation
import Hummingbird
import NIOCore

/// The log as a resource for other systems. `GET /v1/events` (scope `audit`): sealed events in position
/// order with a cursor to resume from, for SIEMs and auditors; every page read, and every refused attempt,
/// is recorded as `audit.accessed` before the answer goes out. `POST /v1/events` (scope `ingest`): events
/// from other systems, idempotent by `event_id`.
struct EventsController: Sendable {
    let access: OperatorAccess
    let store: PostgresEventStore
    let body: RequestBodyReader
    let requestMetadata: RequestMetadataReader
    /// The streamed exports running in this process, at most ``ExportStreamSlots/limit``.
    let streams = ExportStreamSlots()

    func register(on routes: inout RouteTable) {
        routes.add(.get, "/v1/events", use: self.export)
        routes.add(.get, "/v1/events/stream", use: self.exportStream)
        routes.add(.post, "/v1/events", use: self.ingest)
    }

    /// One event object or an array → `{"events": [{"event_id", "position", "stream_version", "stored"}]}`
    /// once they are sealed, all or nothing. A retried call answers with the first call's positions and
    /// `stored: false`, and stores nothing. A bad event is 422 `invalid_event` with its `index`; an
    /// explicit `stream_version` already taken is 409 `wrong_expected_version` with its index.
    @Sendable func ingest(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (actor, metadata) = try await self.access.caller(
            of: request,
            context: context,
            reader: self.requestMetadata,
            scope: .ingest,
            what: "ingest"
        )
        let envelopes: [EventEnvelope]
        do {
            let document = try await self.body.jsonObjectOrArray(of: request)
            envelopes = try EventIngest.envelopes(from: document, actor: actor)
        } catch let refusal as RequestBodyReader.Refusal {
            try await self.access.record(actor: actor, what: "ingest", refusal: .invalidRequest, metadata: metadata)
            throw refusal.answer
        } catch let refusal as EventIngest.Refusal {
            try await self.access.record(
                actor: actor,
                what: "ingest refused event \(refusal.index)",
                refusal: .invalidRequest,
                metadata: metadata
            )
            throw Self.invalidEvent(index: refusal.index, refusal.problem)
        }
        let result = try await self.appendSealed(envelopes, actor: actor, metadata: metadata)
        return JSONResponse.make(.object([("events", .array(result.events.map(Self.stored)))]))
    }

    /// Appends the events as one command and waits for them to be sealed. A refused event or a taken
    /// `stream_version` is recorded as a refused ingest and answered 422 or 409 with its index.
    private func appendSealed(
        _ envelopes: [EventEnvelope],
        actor: String,
        metadata: RequestMetadata
    ) async throws -> AppendResult {
        do {
            guard let outcome = await self.store.appendSealed([AppendCommand(events: envelopes)]).first else {
                throw StoreError(.server, "the store returned no result")
            }
            return try outcome.get()
        } catch let error as StoreError where error.code == .invalidEvent || error.code == .wrongExpectedVersion {
            try await self.access.record(
                actor: actor,
                what: "ingest refused event \(error.eventIndex ?? 0)",
                refusal: .invalidRequest,
                metadata: metadata
            )
            if error.code == .invalidEvent { throw Self.invalidEvent(index: error.eventIndex ?? 0, error.message) }
            var answer = ServiceError(.conflict, "wrong_expected_version", error.message)
            answer.extraMembers = [("index", .number(String(error.eventIndex ?? 0)))]
            throw answer
        } catch {
            throw ServiceError.failure(error)
        }
    }

    /// One appended event as the ingest answer lists it.
    private static func stored(_ event: AppendedEvent) -> JSONValue {
        .object([
            ("event_id", .string(event.eventID.lowercased)),
            ("position", event.position.map { .number(String($0)) } ?? .null),
            ("stream_version", .number(String(event.streamVersion))),
            ("stored", .bool(!event.wasAlreadyStored)),
        ])
    }

    private static func invalidEvent(index: Int, _ problem: String) -> ServiceError {
        var answer = ServiceError(.unprocessableContent, "invalid_event", "Event \(index): \(problem).")
        answer.extraMembers = [("index", .number(String(index)))]
        return answer
    }

    /// `?after=&limit=&type=&user_id=&provider=&format=` → `{"events": […], "next": N, "head": H}`; with
    /// `format=ocsf` each element is the OCSF event a push sink of format `ocsf` sends for it.
    @Sendable func export(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (actor, metadata) = try await self.access.caller(
            of: request,
            context: context,
            reader: self.requestMetadata,
            scope: .audit,
            what: "export"
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
        let rows: ExportRows
        let lag: ReplicaLag?
        do {
            (rows, lag) = try await self.access.read { connection in
                try await EventReader().rows(
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
        // The lines are built while the read is recorded: the record needs only the cursor, and the answer
        // waits for both.
        async let built = rows.lines()
        try await self.access.record(actor: actor, what: query.summary(next: rows.next), lag: lag, metadata: metadata)
        let page: ExportPage
        let lines: [String]
        do {
            page = try await built
            switch query.format {
            case .export: lines = page.events.map(\.json)
            case .ocsf:
                lines = try await self.access.read(measuringLag: false) { try await OCSFExport.lines(of: page, on: $0) }
                    .value
            }
        } catch {
            throw ServiceError.failure(error)
        }
        // The events are lines of JSON in the export format (``ExportLine``), or the push sinks' OCSF lines
        // (``OCSFExport``); the page wraps them.
        var body = ByteBuffer(string: "{\"events\":[")
        for (index, line) in lines.enumerated() {
            if index > 0 { body.writeStaticString(",") }
            body.writeString(line)
        }
        body.writeString("],\"next\":\(page.next),\"head\":\(page.head)}")
        return Response(
            status: .ok,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: body)
        )
    }
}
