import AuthlogAccounts
import AuthlogCore
import AuthlogStore
import Foundation
public import Hummingbird
import Logging

/// Gives every request an id (in the `X-Request-Id` answer header and as `request_id` on every log line),
/// returns the ids of the events it appended in `Authlog-Event-Ids` (comma-separated, at most
/// ``AppendedEvents/limit``: receipts the app can fetch from `/v1/log/receipt/{event_id}`), turns any error
/// into the JSON error answer, counts the request in the metrics (and, when it was refused with 503
/// `database_unavailable`, in ``WriteAvailability``) and logs one line for it: method, route pattern, status
/// and duration — never a query string, a header value or a body.
public struct RequestIDMiddleware: RouterMiddleware {
    public typealias Context = AppRequestContext

    let metrics: ServerMetrics
    /// Where requests refused because nothing could be recorded are counted (nil: nowhere).
    var writes: WriteAvailability?

    public func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        var context = context
        context.requestID = UUID.version7().lowercased
        context.logger[metadataKey: "request_id"] = .string(context.requestID)
        var response: Response
        var errorDetail: String?
        var refusedUnwritable = false
        let appended = AppendedEvents()
        do {
            response = try await AppendedEvents.$current.withValue(appended) { try await next(request, context) }
        } catch let error as ServiceError {
            response = error.response()
            errorDetail = error.logDetail
            refusedUnwritable = error.code == ServiceError.databaseUnavailable.code
        } catch let error as any HTTPResponseError {
            response = Self.answer(for: error.status)
        } catch {
            context.logger.error("request failed", metadata: ["error_type": .string("\(type(of: error))")])
            response = ServiceError(.internalServerError, "internal_error", "Something went wrong on our side.")
                .response()
        }
        response.headers[.requestID] = context.requestID
        let eventIDs = appended.ids
        if !eventIDs.isEmpty {
            response.headers[.eventIDs] = eventIDs.map(\.lowercased).joined(separator: ",")
        }
        let seconds = (ContinuousClock.now - started).inSeconds
        let route = context.endpointPath ?? "unmatched"
        // `/readyz` answers 503 for the outage itself; it refuses nothing.
        if refusedUnwritable, route != "/readyz" { self.writes?.noteRefused(route: route, detail: errorDetail) }
        self.metrics.recordRequest(
            method: request.method.rawValue,
            route: route,
            status: response.status.code,
            seconds: seconds
        )
        var metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue), "route": .string(route),
            "status": .stringConvertible(response.status.code), "duration_ms": .stringConvertible(Int(seconds * 1000)),
        ]
        if let errorDetail { metadata["error_detail"] = .string(errorDetail) }
        context.logger.info("request", metadata: metadata)
        return response
    }

    /// The JSON answer for a framework error (unknown route, wrong method, body too large).
    static func answer(for status: HTTPResponse.Status) -> Response {
        switch status {
        case .notFound: ServiceError(.notFound, "not_found", "No such route.").response()
        case .methodNotAllowed:
            ServiceError(.methodNotAllowed, "method_not_allowed", "The route exists with other methods.").response()
        case .contentTooLarge:
            ServiceError(.contentTooLarge, "request_too_large", "The request body is too large.").response()
        default:
            ServiceError(status, status.code < 500 ? "invalid_request" : "internal_error", status.reasonPhrase)
                .response()
        }
    }
}
