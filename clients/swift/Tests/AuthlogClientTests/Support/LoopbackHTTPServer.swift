import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP request as the loopback server read it.
struct HTTPRequest: Sendable {
    var method: String
    var path: String
    var query: [String: String]
    /// Header names lowercased.
    var headers: [String: String]
    var body: Data
}

/// One HTTP answer.
struct HTTPAnswer: Sendable {
    var status: Int
    var headers: [String: String] = [:]
    var body: Data = Data()
    /// A body written after `body`, chunk by chunk, instead of a `Content-Length` for `body` alone.
    var stream: StreamedBody?

    static func json(_ status: Int, _ object: Any, headers: [String: String] = [:]) -> HTTPAnswer {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return HTTPAnswer(
            status: status,
            headers: headers.merging(["Content-Type": "application/json"]) { $1 },
            body: body
        )
    }
}

/// A real HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for the client's tests: each connection is read on a
/// thread of its own, its one request answered by `handler`, and closed (`Connection: close`). Requests go
/// through URLSession and the network stack as in an app; nothing is mocked below HTTP.
///
/// `@unchecked Sendable`: `listener`, `port` and `handler` are immutable, `stopped` is read and written only while
/// `lock` is held; the socket calls are thread-safe.
final class LoopbackHTTPServer: @unchecked Sendable {
    /// The port it listens on.
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private let handler: @Sendable (HTTPRequest) -> HTTPAnswer

    /// The base URL, `http://127.0.0.1:<port>`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(self.port)") ?? URL(fileURLWithPath: "/") }

    /// Starts a server answering with `handler`.
    init(handler: @escaping @Sendable (HTTPRequest) -> HTTPAnswer) throws {
        self.handler = handler
        #if os(Linux)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let listener = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard listener >= 0, bound == 0, named == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.listener = listener
        self.port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in self.acceptLoop() }.start()
    }

    deinit {
        self.stop()
    }

    /// Stops accepting connections: the blocked `accept` fails, and the accepting thread closes the listener
    /// (closed here, its number could be given to another test's socket while that thread still uses it).
    func stop() {
        let first = self.lock.withLock {
            defer { self.stopped = true }
            return !self.stopped
        }
        guard first else { return }
        shutdown(self.listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let connection = accept(self.listener, nil, nil)
            guard connection >= 0 else {
                close(self.listener)
                return
            }
            Thread { [self] in self.serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        guard let request = Self.read(connection) else { return }
        let answer = self.handler(request)
        var head = "HTTP/1.1 \(answer.status) \(answer.status < 400 ? "OK" : "Error")\r\n"
        for (name, value) in answer.headers { head += "\(name): \(value)\r\n" }
        if let stream = answer.stream {
            if let declared = stream.declaredLength { head += "Content-Length: \(declared)\r\n" }
        } else {
            head += "Content-Length: \(answer.body.count)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        guard Self.write(connection, Array(head.utf8) + Array(answer.body)) else { return }
        if let stream = answer.stream { Self.write(connection, stream) }
        shutdown(connection, Int32(SHUT_WR))
    }

    /// Writes `stream`'s chunks until its total is sent or the peer is gone, counting what the socket took.
    private static func write(_ connection: Int32, _ stream: StreamedBody) {
        let chunk = [UInt8](repeating: stream.byte, count: stream.chunkSize)
        var sent = 0
        while sent < stream.total {
            let part = min(chunk.count, stream.total - sent)
            guard Self.write(connection, Array(chunk[0..<part])) else { return }
            sent += part
            stream.sent.add(part)
            if stream.pauseMicroseconds > 0 { usleep(stream.pauseMicroseconds) }
        }
    }

    /// Reads one request: the head up to the empty line, then `Content-Length` bytes of body.
    private static func read(_ connection: Int32) -> HTTPRequest? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        var wanted = Int.max
        while bytes.count < wanted {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
            if headEnd == nil, let end = Self.find(separator, in: bytes) {
                headEnd = end
                let head = String(decoding: bytes[0..<end], as: UTF8.self)
                let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                let length = lengthLine.flatMap {
                    Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
                }
                wanted = end + 4 + (length ?? 0)
            }
            guard bytes.count < 8 << 20 else { return nil }
        }
        guard let headEnd else { return nil }
        let lines = String(decoding: bytes[0..<headEnd], as: UTF8.self).split(separator: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces
            )
        }
        let target = URLComponents(string: String(parts[1]))
        var query: [String: String] = [:]
        for item in target?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        return HTTPRequest(
            method: String(parts[0]),
            path: target?.path ?? String(parts[1]),
            query: query,
            headers: headers,
            body: Data(bytes[min(bytes.count, headEnd + 4)...])
        )
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where Array(haystack[index..<(index + needle.count)]) == needle
        {
            return index
        }
        return nil
    }

    /// Writes `bytes`; whether all of them went (false once the peer is gone).
    @discardableResult
    private static func write(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if os(Linux)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            let sent = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, flags) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
