public import AuthlogCore
import AuthlogCrypto
import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// A push-delivery receiver for tests and the bench: a real HTTP server on 127.0.0.1 that accepts batches
/// POSTed to `/events`, checks each one's `Signature` (`t=<unix>,v1=<hex HMAC-SHA-256(secret, "<t>." ‖ body)>`)
/// the way docs/operations.md tells a receiver to, and keeps what it accepted. ``failNext(_:)`` makes the next
/// requests fail with 503 before they are read; ``answerAfter(_:)`` makes every answer slow.
public final class SinkReceiver: Sendable {
    /// One accepted batch.
    public struct Batch: Sendable {
        /// The `Authlog-Positions` header: the first and last position of the batch.
        public var positions: String
        /// The body's lines, each a JSON document.
        public var lines: [JSONValue]
    }

    private struct State {
        var batches: [Batch] = []
        var failuresLeft = 0
        var refused = 0
        var badSignatures = 0
        var delay: Duration = .zero
    }

    private let secret: [UInt8]
    private let state = Mutex(State())
    private let runnerBox = Mutex<ServiceRunner?>(nil)

    private init(secret: String) {
        self.secret = Array(secret.utf8)
    }

    /// Starts a receiver that checks signatures with `secret`.
    /// - Throws: when the server cannot start.
    public static func start(secret: String) async throws -> SinkReceiver {
        let receiver = SinkReceiver(secret: secret)
        let router = Router()
        router.post("/events") { request, _ in try await receiver.accept(request) }
        let runner = try await ServiceRunner.start(router: router)
        receiver.runnerBox.withLock { $0 = runner }
        return receiver
    }

    /// `http://127.0.0.1:<port>/events`.
    public var url: String { "http://127.0.0.1:\(self.runnerBox.withLock { $0?.port ?? 0 })/events" }

    /// Stops the server.
    public func stop() async {
        let runner = self.runnerBox.withLock { $0 }
        await runner?.stop()
    }

    /// The next `count` requests are answered 503 and not kept.
    public func failNext(_ count: Int) {
        self.state.withLock { $0.failuresLeft = count }
    }

    /// Every request is answered `delay` after it arrived (a slow receiver).
    public func answerAfter(_ delay: Duration) {
        self.state.withLock { $0.delay = delay }
    }

    /// The batches accepted, in the order they arrived.
    public var batches: [Batch] { self.state.withLock { $0.batches } }

    /// Requests answered 503 on purpose.
    public var refused: Int { self.state.withLock { $0.refused } }

    /// Requests whose signature did not verify (answered 401).
    public var badSignatures: Int { self.state.withLock { $0.badSignatures } }

    /// Every position accepted, in arrival order (a batch delivered again shows twice).
    public var positions: [Int64] {
        self.batches.flatMap { $0.lines.compactMap { Self.position(of: $0) } }
    }

    /// The position of an export-format line, or of an OCSF event (`metadata.sequence`).
    static func position(of line: JSONValue) -> Int64? {
        (line["position"] ?? line["metadata"]?["sequence"])?.integerValue
    }

    private func accept(_ request: Request) async throws -> Response {
        let delay = self.state.withLock { $0.delay }
        if delay > .zero { try await Task.sleep(for: delay) }
        let failing = self.state.withLock { state in
            guard state.failuresLeft > 0 else { return false }
            state.failuresLeft -= 1
            state.refused += 1
            return true
        }
        if failing { return Response(status: .serviceUnavailable) }
        let body = Array(buffer: try await request.body.collect(upTo: 16 << 20))
        guard let header = Self.header("signature", of: request), self.verifies(header, body: body) else {
            self.state.withLock { $0.badSignatures += 1 }
            return Response(status: .unauthorized)
        }
        let lines = try String(decoding: body, as: UTF8.self).split(separator: "\n").map {
            try JSONParser().parse(Array($0.utf8))
        }
        let positions = Self.header("authlog-positions", of: request) ?? ""
        self.state.withLock { $0.batches.append(Batch(positions: positions, lines: lines)) }
        return Response(status: .noContent)
    }

    private static func header(_ name: String, of request: Request) -> String? {
        request.headers.first { $0.name.canonicalName == name }?.value
    }

    /// Whether `header` is `t=<unix>,v1=<hex>` with the HMAC of `"<t>." ‖ body` under the secret, and `t`
    /// within five minutes of now.
    private func verifies(_ header: String, body: [UInt8]) -> Bool {
        var fields: [Substring: Substring] = [:]
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[pair[0]] = pair[1] }
        }
        guard let timestamp = fields["t"].flatMap({ Int64($0) }), let given = fields["v1"],
            abs(Int64(Date().timeIntervalSince1970) - timestamp) <= 300,
            let expected = try? HMACSHA256.authenticationCode(for: Array("\(timestamp).".utf8) + body, key: self.secret)
        else { return false }
        return Hex.encode(expected) == given
    }
}
