import AuthlogTesting
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay on 127.0.0.1 in front of a server that keeps every byte each way of every connection, so that a
/// benchmark counts what a client sends and receives on the wire (status lines, headers and bodies; no TLS: the
/// relay and the server speak plain HTTP/1.1). ``exchanges()`` parses the bytes into requests and answers.
final class WireRecorder: Sendable {
    /// One connection's bytes, each way.
    struct Connection: Sendable {
        var sent: [UInt8] = []
        var received: [UInt8] = []
    }

    /// The most bytes kept over all connections; a run past it fails rather than count wrongly.
    static let limit = 256 << 20

    /// The port the relay listens on.
    let port: Int
    private let targetPort: Int
    private let listener: Int32
    private let connections = Mutex<[Int: Connection]>([:])
    private let total = Mutex(0)

    /// Starts a relay to `127.0.0.1:targetPort`.
    init(targetPort: Int) throws {
        self.targetPort = targetPort
        (self.listener, self.port) = try LoopbackSocket.listen(backlog: 64)
        Thread { [self] in self.acceptLoop() }.start()
    }

    /// `http://127.0.0.1:<port>`.
    var baseURL: URL? { URL(string: "http://127.0.0.1:\(self.port)") }

    /// Every byte relayed so far, both ways.
    var bytes: Int { self.total.withLock { $0 } }

    /// The requests and answers relayed so far, each connection's in order.
    /// - Throws: ``BenchFailure`` when a stream is not HTTP/1.1 as the parser reads it, or the relay kept
    ///   more than ``limit`` bytes.
    func exchanges() throws -> [WireExchange] {
        guard self.bytes <= Self.limit else { throw BenchFailure("the wire recorder kept more than its limit") }
        let connections = self.connections.withLock { $0 }
        return try connections.keys.sorted().flatMap { key -> [WireExchange] in
            guard let connection = connections[key] else { return [] }
            return try WireExchange.parse(sent: connection.sent, received: connection.received)
        }
    }

    /// Stops accepting connections (the open ones end when their peers close them).
    func stop() {
        shutdown(self.listener, Int32(SHUT_RDWR))
        close(self.listener)
    }

    private func acceptLoop() {
        var next = 0
        while true {
            let client = accept(self.listener, nil, nil)
            guard client >= 0 else { return }
            guard let server = LoopbackSocket.connect(port: self.targetPort) else {
                close(client)
                continue
            }
            let key = next
            next += 1
            self.connections.withLock { $0[key] = Connection() }
            let closer = PairCloser(client: client, server: server)
            Thread { [self] in self.pump(from: client, to: server, key: key, sent: true, closer: closer) }.start()
            Thread { [self] in self.pump(from: server, to: client, key: key, sent: false, closer: closer) }.start()
        }
    }

    /// Relays one direction, keeping its bytes.
    private func pump(from source: Int32, to destination: Int32, key: Int, sent: Bool, closer: PairCloser) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(source, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            let kept = self.total.withLock { total -> Bool in
                total += count
                return total <= Self.limit
            }
            if kept {
                self.connections.withLock { connections in
                    if sent {
                        connections[key]?.sent.append(contentsOf: buffer[0..<count])
                    } else {
                        connections[key]?.received.append(contentsOf: buffer[0..<count])
                    }
                }
            }
            guard LoopbackSocket.sendAll(destination, buffer, count) else { break }
        }
        shutdown(destination, Int32(SHUT_WR))
        closer.finish()
    }

    /// Closes a connection's two sockets once both directions ended.
    private final class PairCloser: Sendable {
        let client: Int32
        let server: Int32
        private let finished = Mutex(0)

        init(client: Int32, server: Int32) {
            self.client = client
            self.server = server
        }

        func finish() {
            let last = self.finished.withLock { count -> Bool in
                count += 1
                return count == 2
            }
            if last {
                close(self.client)
                close(self.server)
            }
        }
    }
}
