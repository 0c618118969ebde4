import AuthlogCore
import Hummingbird
import NIOCore

/// JSON answers, never cached (they carry tokens).
enum JSONResponse {
    static func make(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: value.canonicalBytes))
        )
    }
}
