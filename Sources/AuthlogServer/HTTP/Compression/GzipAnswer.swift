import AuthlogCore
import Hummingbird

/// The log's per-device read answers, gzip-compressed when the request takes gzip (`Accept-Encoding`): the
/// receipts of a device's events (their bytes in base64 and one proof) and consistency proofs, what a monitoring
/// app fetches every day (AuthlogClient asks for gzip). Only these: they hold no secret, so compressing them
/// beside text a client chose (BREACH) tells nothing; the answers that carry tokens stay identity.
enum GzipAnswer {
    /// Answers shorter than this stay identity: gzip's 18 bytes of frame and the extra header eat the gain.
    static let minimumBytes = 256

    /// `value` as a JSON answer (``JSONResponse``), compressed when `request` takes gzip and it is worth it;
    /// `Vary: Accept-Encoding` either way, so a cache never gives one client the other's form.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, for request: Request) -> Response {
        let bytes = value.canonicalBytes
        let accepted = request.headers[values: .acceptEncoding].joined(separator: ",")
        let compressed =
            bytes.count >= Self.minimumBytes && AcceptEncoding.acceptsGzip(accepted)
            ? Gzip.compress(bytes).flatMap { $0.count < bytes.count ? $0 : nil } : nil
        var response = JSONResponse.make(bytes: compressed ?? bytes, status: status)
        response.headers[.vary] = "Accept-Encoding"
        if compressed != nil { response.headers[.contentEncoding] = "gzip" }
        return response
    }
}
