public import AuthlogCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP answer read off a raw socket.
public struct RawHTTPAnswer: Sendable {
    /// The status code.
    public let status: Int
    /// The header fields, in order.
    public let headers: [(name: String, value: String)]
    /// The body.
    public let body: [UInt8]

    /// The first value of header `name`, compared without case.
    public func header(_ name: String) -> String? {
        self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as JSON; `nil` when it is not JSON.
    public var json: JSONValue? { try? JSONParser().parse(self.body) }
}

/// Sends exactly the bytes a test gives — malformed, slow or partial requests that an HTTP client library
/// would refuse to send — to a server on 127.0.0.1.
public enum RawHTTPClient {
    /// No complete answer came within the timeout.
    public struct TimedOut: Error, CustomStringConvertible {
        /// Creates the error.
        public init() {}
        public var description: String { "no complete answer in time" }
    }

    /// Opens a connection to 127.0.0.1:`port`, writes `request` as given, then reads one answer (status line,
    /// headers and a `Content-Length` body, or up to the peer's close) within `timeout`. A write that the peer
    /// refuses part-way is no error when an answer can still be read.
    /// - Returns: the answer, or `nil` when the connection closed without one.
    /// - Throws: ``TimedOut``, or a POSIX error when the connection cannot be opened.
    public static func exchange(port: Int, request: [UInt8], timeout: Duration) throws -> RawHTTPAnswer? {
        let connection = try RawConnection(port: port)
        defer { connection.close() }
        try? connection.write(request)
        return try connection.readAnswer(timeout: timeout)
    }
}

/// One open TCP connection to 127.0.0.1, for tests that send slowly or leave things unread.
///
/// `@unchecked Sendable`: a test hands a connection from thread to thread (open it on one, read on another)
/// but never uses one from two threads at once; the descriptor and buffer are touched by one caller at a time.
public final class RawConnection: @unchecked Sendable {
    private var descriptor: Int32
    private var buffered: [UInt8] = []

    /// Connects to 127.0.0.1:`port`, from `source` (another loopback address, such as 127.0.0.2, makes a
    /// second client host) when given.
    /// - Throws: `POSIXError` when the connection cannot be made.
    public init(port: Int, from source: String? = nil) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(descriptor)
                throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EADDRNOTAVAIL)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .ECONNREFUSED)
        }
        // A write never blocks forever, whatever the server does with what it is sent.
        var sendTimeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        self.descriptor = descriptor
    }

    deinit { self.close() }

    /// Writes all of `bytes`.
    /// - Throws: `POSIXError` when the peer has closed or reset the connection.
    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPIPE)
            }
            offset += written
        }
    }

    /// Reads one answer within `timeout`.
    /// - Returns: the answer, or `nil` when the peer closed before sending any byte of one.
    /// - Throws: ``RawHTTPClient/TimedOut`` when the answer is not complete in time.
    public func readAnswer(timeout: Duration) throws -> RawHTTPAnswer? {
        let deadline = ContinuousClock.now + timeout
        var peerClosed = false
        while true {
            if let answer = self.parseAnswer(complete: peerClosed) { return answer }
            if peerClosed { return self.buffered.isEmpty ? nil : self.parseAnswer(complete: true) }
            switch self.receive(until: deadline) {
            case .data(let bytes): self.buffered += bytes
            case .closed: peerClosed = true
            case .timedOut: throw RawHTTPClient.TimedOut()
            }
        }
    }

    /// Whether the peer closes (or resets) the connection within `within`; unread answer bytes are skipped.
    public func isClosedByPeer(within: Duration) -> Bool {
        let deadline = ContinuousClock.now + within
        while true {
            switch self.receive(until: deadline) {
            case .data: continue
            case .closed: return true
            case .timedOut: return false
            }
        }
    }

    /// Closes the connection (again is harmless).
    public func close() {
        if self.descriptor >= 0 {
            Glibc.close(self.descriptor)
            self.descriptor = -1
        }
    }

    private enum Received {
        case data([UInt8])
        case closed
        case timedOut
    }

    private func receive(until deadline: ContinuousClock.Instant) -> Received {
        guard self.descriptor >= 0 else { return .closed }
        while true {
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero { return .timedOut }
            let milliseconds = Int32(
                clamping: max(
                    1,
                    remaining.components.seconds * 1_000 + remaining.components.attoseconds / 1_000_000_000_000_000
                )
            )
            var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { return .data(Array(chunk[0..<count])) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            return .closed
        }
    }

    /// One answer from the buffered bytes, when they hold a whole one (or all there will be, when `complete`).
    private func parseAnswer(complete: Bool) -> RawHTTPAnswer? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let headEnd = self.buffered.firstRange(of: separator) else { return nil }
        let head = String(decoding: self.buffered[..<headEnd.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers: [(name: String, value: String)] = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let bodyStart = headEnd.upperBound
        let available = self.buffered.count - bodyStart
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) }
        if let length {
            guard available >= length else { return nil }
            let body = Array(self.buffered[bodyStart..<(bodyStart + length)])
            self.buffered.removeFirst(bodyStart + length)
            return RawHTTPAnswer(status: status, headers: headers, body: body)
        }
        if headers.contains(where: { $0.name.lowercased() == "transfer-encoding" && $0.value.lowercased() == "chunked" }
        ) {
            guard let (body, used) = Self.dechunk(self.buffered[bodyStart...]) else { return nil }
            self.buffered.removeFirst(bodyStart + used)
            return RawHTTPAnswer(status: status, headers: headers, body: body)
        }
        let noBody = status == 204 || status == 304 || (100..<200).contains(status)
        guard noBody || complete else { return nil }
        let body = noBody ? [] : Array(self.buffered[bodyStart...])
        self.buffered.removeFirst(noBody ? bodyStart : self.buffered.count)
        return RawHTTPAnswer(status: status, headers: headers, body: body)
    }

    /// A chunked body and the bytes it took, once its last chunk is in.
    private static func dechunk(_ bytes: ArraySlice<UInt8>) -> (body: [UInt8], used: Int)? {
        var body: [UInt8] = []
        var index = bytes.startIndex
        while true {
            guard let lineEnd = bytes[index...].firstRange(of: [13, 10]) else { return nil }
            let sizeText =
                String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                return nil
            }
            let dataStart = lineEnd.upperBound
            guard bytes.endIndex - dataStart >= size + 2 else { return nil }
            if size == 0 { return (body, dataStart + 2 - bytes.startIndex) }
            body += bytes[dataStart..<(dataStart + size)]
            index = dataStart + size + 2
        }
    }
}
