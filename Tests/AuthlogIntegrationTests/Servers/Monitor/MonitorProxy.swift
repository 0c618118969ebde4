import AuthlogTesting
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// An HTTP proxy on 127.0.0.1 standing for one device's network path to authlog: every request goes to the
/// primary server, except the log's routes (`/v1/log/…`) once ``divertLogReads(to:)`` names another server,
/// as an operator who shows this one user a second history would. Other users talk to the servers directly.
///
/// A test may also change what the device gets (``rewrite(_:)``) and read back what the log's routes
/// answered (``logAnswers``); a gzip answer is decoded first and reaches the device uncompressed.
final class MonitorProxy: Sendable {
    /// One request as the device sent it.
    struct Exchange: Sendable {
        /// The method.
        var method: String
        /// The path and query.
        var target: String
        /// The request's headers, but the hop-by-hop ones.
        var headers: [(name: String, value: String)]
        /// The request's body.
        var body: [UInt8]
        /// The base URL of the server it went to.
        var server: String

        /// The path without the query.
        var path: Substring { self.target.prefix { $0 != "?" } }

        /// The first header called `name` (case-insensitive).
        func header(_ name: String) -> String? {
            self.headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// What a server answered (or what the proxy hands on instead).
    typealias Answer = HTTPTestClient.Answer

    /// Changes an answer before the device gets it (it may send requests of its own, as another user).
    typealias Rewrite = @Sendable (Exchange, Answer) async throws -> Answer

    private let routing: Routing
    private let runner: ServiceRunner

    /// The URL the device is given as authlog's base URL.
    let baseURL: URL

    private init(routing: Routing, runner: ServiceRunner) throws {
        self.routing = routing
        self.runner = runner
        guard let url = URL(string: runner.baseURL) else { throw CocoaError(.fileReadInvalidFileName) }
        self.baseURL = url
    }

    /// Starts a proxy to `primary` (`http://127.0.0.1:<port>`).
    static func start(primary: String) async throws -> MonitorProxy {
        let routing = Routing(primary: primary)
        let router = Router()
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] {
            router.on("/**", method: method) { request, _ in try await routing.forward(request) }
        }
        return try MonitorProxy(routing: routing, runner: try await ServiceRunner.start(router: router))
    }

    /// Sends the log's routes to `server` from now on (`nil`: back to the primary).
    func divertLogReads(to server: String?) { self.routing.state.withLock { $0.logServer = server } }

    /// Changes every answer from now on with `rewrite` (`nil`: hands them on unchanged).
    func rewrite(_ rewrite: Rewrite?) { self.routing.state.withLock { $0.rewrite = rewrite } }

    /// The log routes' exchanges and what the device got, oldest first (the last 500).
    var logAnswers: [(Exchange, Answer)] { self.routing.state.withLock { $0.logAnswers } }

    /// Stops the proxy.
    func stop() async { await self.runner.stop() }
}

extension MonitorProxy {
    /// Where requests go, shared by the router's handlers and the proxy.
    fileprivate final class Routing: Sendable {
        struct State {
            var primary: String
            var logServer: String?
            var rewrite: Rewrite?
            var logAnswers: [(Exchange, Answer)] = []
        }

        /// The longest body read from the device.
        private static let bodyLimit = 1 << 20
        /// The most log answers kept for ``MonitorProxy/logAnswers``.
        private static let keptAnswers = 500
        private static let hopByHop: Set<String> = [
            "connection", "keep-alive", "transfer-encoding", "content-length", "host", "upgrade", "te", "trailer",
        ]

        let state: Mutex<State>

        init(primary: String) { self.state = Mutex(State(primary: primary)) }

        /// Sends `request` on to its server and hands back the (possibly rewritten) answer.
        func forward(_ request: Request) async throws -> Response {
            let target = request.uri.description
            let isLog = request.uri.path.hasPrefix("/v1/log/")
            let (server, rewrite) = self.state.withLock { state in
                ((isLog ? state.logServer : nil) ?? state.primary, state.rewrite)
            }
            let exchange = Exchange(
                method: request.method.rawValue,
                target: target,
                // The Host the device addressed goes on, as behind nginx's `proxy_set_header Host $host`: the
                // server then takes the proxy's URL for its own, which is what the device's DPoP proofs name.
                headers: (request.head.authority.map { [("Host", $0)] } ?? [])
                    + request.headers.compactMap { field in
                        Self.hopByHop.contains(field.name.canonicalName) ? nil : (field.name.rawName, field.value)
                    },
                body: Array(buffer: try await request.body.collect(upTo: Self.bodyLimit)),
                server: server
            )
            var answer = try await HTTPTestClient(baseURL: server).send(
                exchange.method,
                exchange.target,
                body: exchange.body.isEmpty ? nil : exchange.body,
                headers: exchange.headers.map { ($0.name, $0.value) }
            )
            // The log's answers come gzip to a device that asks (AuthlogClient does): decoded here, so that rewrites
            // and `logAnswers` read the JSON, and passed on uncompressed. Gzip end to end is checked by
            // LogAnswerCompressionTests and the client's own tests.
            if answer.header("Content-Encoding")?.lowercased() == "gzip" {
                answer = HTTPTestClient.Answer(
                    status: answer.status,
                    headers: answer.headers.filter { $0.name.lowercased() != "content-encoding" },
                    body: try SystemGzip.decompress(answer.body)
                )
            }
            if let rewrite { answer = try await rewrite(exchange, answer) }
            if isLog {
                self.state.withLock { state in
                    state.logAnswers.append((exchange, answer))
                    if state.logAnswers.count > Self.keptAnswers { state.logAnswers.removeFirst() }
                }
            }
            var headers = HTTPFields()
            for (name, value) in answer.headers where !Self.hopByHop.contains(name.lowercased()) {
                if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
            }
            return Response(
                status: HTTPResponse.Status(code: answer.status),
                headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
            )
        }
    }
}

extension HTTPTestClient.Answer {
    /// This answer with the header `name` set to `value` (replacing any of that name).
    func setting(_ name: String, to value: String) -> HTTPTestClient.Answer {
        HTTPTestClient.Answer(
            status: self.status,
            headers: self.headers.filter { $0.name.lowercased() != name.lowercased() } + [(name, value)],
            body: self.body
        )
    }
}
