import AuthlogTesting
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 between the client and the server that cuts the connection of the first
/// `POST /v1/token/refresh` after the server answered it: the client gets the first bytes of the answer and then
/// a closed connection, as when a phone loses the network mid-answer. (The headers and a few bytes of the body
/// are passed on so that no HTTP library can take the cut for a stale kept-alive connection and resend the
/// request by itself.)
///
/// `@unchecked Sendable`: `refreshesToCut` and `cutCount` are read and written only while `lock` is held; the
/// other stored properties are immutable.
final class DroppingProxy: @unchecked Sendable {
    /// The port the proxy listens on.
    let port: Int
    private let targetPort: Int
    private let listener: Int32
    private let lock = NSLock()
    private var refreshesToCut: Int
    private var cutCount = 0

    /// Starts a proxy to `127.0.0.1:targetPort` that cuts `cuts` refresh answers.
    init(targetPort: Int, cuts: Int = 1) throws {
        self.targetPort = targetPort
        self.refreshesToCut = cuts
        (self.listener, self.port) = try LoopbackSocket.listen()
        Thread { [self] in self.acceptLoop() }.start()
    }

    /// How many refresh answers were cut.
    var cuts: Int { self.lock.withLock { self.cutCount } }

    /// Stops accepting connections.
    func stop() {
        shutdown(self.listener, Int32(SHUT_RDWR))
        close(self.listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(self.listener, nil, nil)
            guard client >= 0 else { return }
            guard let server = LoopbackSocket.connect(port: self.targetPort) else {
                close(client)
                continue
            }
            let pair = ConnectionPair(client: client, server: server)
            Thread { [self] in self.pumpRequests(pair) }.start()
            Thread { [self] in self.pumpAnswers(pair) }.start()
        }
    }

    /// Client to server; marks the connection when a refresh goes through it.
    private func pumpRequests(_ pair: ConnectionPair) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(pair.client, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            let text = String(decoding: buffer[0..<count], as: UTF8.self)
            if text.hasPrefix("POST /v1/token/refresh ") {
                let cut = self.lock.withLock {
                    guard self.refreshesToCut > 0 else { return false }
                    self.refreshesToCut -= 1
                    return true
                }
                if cut { pair.cutNextAnswer() }
            }
            guard LoopbackSocket.sendAll(pair.server, buffer, count) else { break }
        }
        shutdown(pair.server, Int32(SHUT_WR))
        pair.finish()
    }

    /// Server to client; the answer to a marked refresh is cut after its first bytes.
    private func pumpAnswers(_ pair: ConnectionPair) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(pair.server, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            if pair.takeCut() {
                _ = LoopbackSocket.sendAll(pair.client, buffer, Self.headerLength(buffer, count) ?? min(count, 12))
                self.lock.withLock { self.cutCount += 1 }
                shutdown(pair.client, Int32(SHUT_RDWR))
                shutdown(pair.server, Int32(SHUT_RDWR))
                break
            }
            guard LoopbackSocket.sendAll(pair.client, buffer, count) else { break }
        }
        shutdown(pair.client, Int32(SHUT_WR))
        pair.finish()
    }

    /// The length of the answer's status line and headers and a few bytes of its body, when `buffer` holds them:
    /// the client then knows an answer was under way, and no HTTP library resends the request by itself (as
    /// libcurl does when a kept-alive connection closes before a complete header line arrived).
    private static func headerLength(_ buffer: [UInt8], _ count: Int) -> Int? {
        let end = Array("\r\n\r\n".utf8)
        guard count >= end.count else { return nil }
        for index in 0...(count - end.count) where Array(buffer[index..<(index + end.count)]) == end {
            return min(count, index + end.count + 4)
        }
        return nil
    }
}

/// The two sockets of one proxied connection.
///
/// `@unchecked Sendable`: `cutPending` and `finished` are read and written only while `lock` is held; the
/// descriptors are immutable and closed once, by whichever pump finishes second.
private final class ConnectionPair: @unchecked Sendable {
    let client: Int32
    let server: Int32
    private let lock = NSLock()
    private var cutPending = false
    private var finished = 0

    init(client: Int32, server: Int32) {
        self.client = client
        self.server = server
    }

    func cutNextAnswer() { self.lock.withLock { self.cutPending = true } }

    func takeCut() -> Bool {
        self.lock.withLock {
            defer { self.cutPending = false }
            return self.cutPending
        }
    }

    func finish() {
        let last = self.lock.withLock {
            self.finished += 1
            return self.finished == 2
        }
        if last {
            close(self.client)
            close(self.server)
        }
    }
}
