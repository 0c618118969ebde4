import AuthlogCore
import Hummingbird
import NIOCore

/// JSON answers, never cached (they carry tokens).
enum JSONResponse {
    static func make(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        self.make(bytes: value.canonicalBytes, status: status)
    }

    /// A JSON answer whose body is `bytes`, already encoded (``GzipAnswer`` passes them compressed).
    static func make(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
