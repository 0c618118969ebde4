import AuthlogCore
import HTTPTypes
import Hummingbird
import NIOCore

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
        var headers: HTTPFields = [
            .contentType: "application/json", .cacheControl: "no-store", .vary: "Accept-Encoding",
        ]
        var body = bytes
        let accepted = request.headers[values: .acceptEncoding].joined(separator: ",")
        if bytes.count >= Self.minimumBytes, AcceptEncoding.acceptsGzip(accepted),
            let compressed = Gzip.compress(bytes), compressed.count < bytes.count
        {
            headers[.contentEncoding] = "gzip"
            body = compressed
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
