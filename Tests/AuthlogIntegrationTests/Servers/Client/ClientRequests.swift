import AuthlogClient
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests the tests send through ``AuthlogClient/send(_:)``.
enum ClientRequests {
    /// `GET /v1/log/receipt/{event_id}`: a bearer route that exists today; the event's own user gets past the
    /// token check (then 200, or 409 until a checkpoint covers the event), anyone else 401 or 404.
    static func receipt(_ server: ClientTestServer, eventID: String) -> URLRequest {
        URLRequest(url: server.baseURL.appendingPathComponent("v1/log/receipt/\(eventID)"))
    }
}
