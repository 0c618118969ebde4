import AuthlogAccounts
import AuthlogCore
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Thrown into a request's body when the body did not arrive within the body timeout; the route answers
/// 408 `request_timeout` (and records a sign-in or refresh so refused).
struct RequestBodyTimedOut: Error {}

/// Watches one HTTP/1 connection between the HTTP codec and the application, so that no client can hold
/// it, or what it allocated, longer than the ``ConnectionLimits`` allow, and so that nothing is answered
/// bare from below the router:
/// - headers must be complete within the header timeout (else a JSON 408 and close), a body within the body
///   timeout (else the route's body read fails and it answers 408), and a kept-alive connection closes after
///   the idle timeout;
/// - an answer given before its request's body was read (413, or a route that ignores bodies) closes the
///   connection: the rest is read and dropped for a short linger, so the client sees the answer and not a
///   reset, and the connection's buffers are never pinned by an unread body — likewise when the application
///   half-closes after `Connection: close`;
/// - a request the HTTP parser refuses, or one no route can take (`CONNECT`, a target that is not a path), is
///   answered here with the JSON error shape, an `X-Request-Id`, a log line and the metrics;
/// - a connection from an address that already holds ``ConnectionLimits/maximumPerAddress`` is closed at
///   once and counted (``ConnectionCounter``), and while the server is busy an idle kept-alive connection
///   gets ``ConnectionLimits/busyIdleTimeout``;
/// - pipelined requests (several written before the first is answered, RFC 9112 §9.3.2) are each answered,
///   in order: the guard counts the requests handed on and not yet answered, so the answer to one request
///   never reads as "answered before its body" for the next. A request refused here behind pipelined ones is
///   answered after them, and nothing after it is handed on.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Phase {
        /// Waiting for a request's headers (the first request's, or the next on a kept-alive connection).
        case awaitingHead
        /// Headers read; the body is arriving.
        case readingBody
        /// A request was refused here behind pipelined ones still being answered: nothing more is handed on,
        /// and the refusal is answered after them.
        case refusing(Refusal)
        /// Output closed; whatever arrives is dropped until the connection closes.
        case lingering
    }

    /// A request answered from here, below the router.
    private struct Refusal {
        var status: HTTPResponse.Status
        var code: String
        var description: String
        var method: String
    }

    private let limits: ConnectionLimits
    private let logger: Logger
    private let metrics: ServerMetrics
    private let counter: ConnectionCounter?
    /// Counts what is refused here per peer address, for the log's aggregated `request.refused`.
    private let recorder: RefusalRecorder?
    /// Whether the counter admitted this connection (and must be told when it closes), and its peer's address.
    private var admitted: (Bool, IPAddress?) = (false, nil)
    private var phase = Phase.awaitingHead
    private var requestsSeen = 0
    /// Requests handed on to the application whose answers are not yet complete.
    private var unanswered = 0
    private var isWatching = false
    private var timer: Scheduled<Void>?

    /// A guard for one connection; `counter`, shared by the server's connections, caps connections per address;
    /// `recorder` counts the refusals for the log.
    init(
        limits: ConnectionLimits,
        logger: Logger,
        metrics: ServerMetrics,
        counter: ConnectionCounter? = nil,
        recorder: RefusalRecorder? = nil
    ) {
        self.limits = limits
        self.logger = logger
        self.metrics = metrics
        self.counter = counter
        self.recorder = recorder
    }

    /// Counts a refusal of `kind` against the connection's peer address (the proxy's, behind one: no header
    /// has been read that could be believed).
    private func noteRefusal(_ kind: String, context: ChannelHandlerContext) {
        guard let recorder = self.recorder else { return }
        let peer = context.channel.remoteAddress?.ipAddress.flatMap { IPAddress($0) }
        recorder.noteRequestRefused(address: peer?.limitKey ?? "unknown", kind: kind)
    }

    // MARK: Inbound

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.startWatching(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.startWatching(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.cancelTimer()
        self.releaseSlot()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.cancelTimer()
        self.releaseSlot()
    }

    private func releaseSlot() {
        guard self.admitted.0 else { return }
        self.admitted.0 = false
        self.counter?.release(self.admitted.1)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = self.unwrapInboundIn(data)
        switch (self.phase, part) {
        case (.lingering, _), (.refusing, _):
            context.read()
        case (.awaitingHead, .head(let head)):
            self.cancelTimer()
            self.requestsSeen += 1
            if head.method == .connect || head.path?.hasPrefix("/") != true {
                let isConnect = head.method == .connect
                self.refuse(
                    Refusal(
                        status: isConnect ? .methodNotAllowed : .badRequest,
                        code: isConnect ? "method_not_allowed" : "invalid_request",
                        description: isConnect ? "CONNECT is not served here." : "The request target must be a path.",
                        method: head.method.rawValue
                    ),
                    context: context
                )
                return
            }
            self.phase = .readingBody
            self.unanswered += 1
            self.schedule(context: context, after: self.limits.bodyTimeout) { $0.bodyTimedOut(context: context) }
            context.fireChannelRead(data)
        case (.readingBody, .end):
            self.cancelTimer()
            self.phase = .awaitingHead
            context.fireChannelRead(data)
        default:
            context.fireChannelRead(data)
        }
    }

    /// Answers `refusal` now, or after the pipelined requests before it are answered.
    private func refuse(_ refusal: Refusal, context: ChannelHandlerContext) {
        guard self.unanswered == 0 else {
            self.phase = .refusing(refusal)
            return
        }
        self.answerBelowRouter(context: context, refusal)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        switch self.phase {
        case .lingering, .refusing:
            return
        case .awaitingHead:
            // Bytes that are not HTTP, before a request or after complete (perhaps pipelined) ones: the answers
            // in progress are given, then this one, then the connection closes.
            self.cancelTimer()
            let isHeaderOverflow: Bool
            if case .headerOverflow = parseError { isHeaderOverflow = true } else { isHeaderOverflow = false }
            self.refuse(
                Refusal(
                    status: isHeaderOverflow ? .requestHeaderFieldsTooLarge : .badRequest,
                    code: isHeaderOverflow ? "request_header_fields_too_large" : "invalid_request",
                    description: isHeaderOverflow
                        ? "The request headers are too large." : "The request is not valid HTTP/1.1.",
                    method: "-"
                ),
                context: context
            )
        case .readingBody:
            // The route reading the body answers (400); the connection closes after that answer.
            context.fireErrorCaught(error)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .lingering = self.phase, let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = self.unwrapOutboundIn(data) else {
            if case .lingering = self.phase {
                // Nothing more is said on a closing connection (a framework's bare 400 after ours, say).
                promise?.succeed(())
            } else {
                context.write(data, promise: promise)
            }
            return
        }
        switch self.phase {
        case .lingering:
            promise?.succeed(())
        case .readingBody where self.unanswered <= 1, .awaitingHead where self.unanswered == 0:
            // Answered before the request's body was read: close rather than read an unbounded rest.
            self.unanswered = 0
            context.writeAndFlush(data, promise: promise)
            self.startLingering(context: context)
        case .refusing(let refusal):
            context.write(data, promise: promise)
            self.unanswered -= 1
            if self.unanswered == 0 { self.answerBelowRouter(context: context, refusal) }
        case .awaitingHead, .readingBody:
            context.write(data, promise: promise)
            self.unanswered -= 1
            if self.unanswered == 0, case .awaitingHead = self.phase {
                let idle = self.counter?.isBusy == true ? self.limits.busyIdleTimeout : self.limits.idleTimeout
                self.schedule(context: context, after: idle) { _ in context.close(promise: nil) }
            }
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .output else {
            context.close(mode: mode, promise: promise)
            return
        }
        // The application is done with a `Connection: close` exchange: close it, not just its output.
        self.startLingering(context: context)
        promise?.succeed(())
    }

    // MARK: Timers and closing

    private func startWatching(context: ChannelHandlerContext) {
        guard !self.isWatching else { return }
        self.isWatching = true
        if let counter = self.counter {
            let peer = context.channel.remoteAddress?.ipAddress.flatMap { IPAddress($0) }
            guard counter.admit(peer) else {
                // One host already holds its share of the slots: closed before any byte is read.
                self.metrics.recordRefusedConnection(reason: "per_address_cap")
                self.noteRefusal("per_address_cap", context: context)
                self.phase = .lingering
                context.close(promise: nil)
                return
            }
            self.admitted = (true, peer)
        }
        self.schedule(context: context, after: self.limits.headerTimeout) { $0.headersTimedOut(context: context) }
    }

    private func headersTimedOut(context: ChannelHandlerContext) {
        guard case .awaitingHead = self.phase, self.unanswered == 0 else { return }
        self.answerBelowRouter(
            context: context,
            Refusal(
                status: .requestTimeout,
                code: "request_timeout",
                description: "The request headers did not arrive in time.",
                method: "-"
            )
        )
    }

    private func bodyTimedOut(context: ChannelHandlerContext) {
        guard case .readingBody = self.phase else { return }
        context.fireErrorCaught(RequestBodyTimedOut())
        // The route answers 408 and the connection closes after it; if no answer comes, it closes anyway.
        self.schedule(context: context, after: self.limits.lingerTimeout) { _ in context.close(promise: nil) }
    }

    /// Closes the output now and the whole connection after the linger, dropping what arrives meanwhile.
    private func startLingering(context: ChannelHandlerContext) {
        if case .lingering = self.phase { return }
        self.phase = .lingering
        context.flush()
        let closed = context.eventLoop.makePromise(of: Void.self)
        closed.futureResult.assumeIsolated().whenFailure { _ in context.close(promise: nil) }
        context.close(mode: .output, promise: closed)
        self.schedule(context: context, after: self.limits.lingerTimeout) { _ in context.close(promise: nil) }
        context.read()
    }

    /// Answers with the JSON error shape from here, where no route runs, logs it and closes.
    private func answerBelowRouter(context: ChannelHandlerContext, _ refusal: Refusal) {
        let (status, code, description, method) = (refusal.status, refusal.code, refusal.description, refusal.method)
        let requestID = UUID.version7().lowercased
        let body = ServiceError(status, code, description).jsonBody
        // Written as bytes below NIO's response encoder, which would drop the body of an answer to CONNECT and
        // cannot be trusted with its state after a parse error.
        let head =
            "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\nContent-Type: application/json\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
            + "X-Request-Id: \(requestID)\r\n\r\n"
        if let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) {
            encoder.writeAndFlush(NIOAny(ByteBuffer(bytes: Array(head.utf8) + body)), promise: nil)
        } else {
            var fields: HTTPFields = [
                .contentType: "application/json", .cacheControl: "no-store", .connection: "close",
                .contentLength: String(body.count),
            ]
            fields[.requestID] = requestID
            context.write(self.wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: fields))), promise: nil)
            context.write(self.wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil)
            context.write(self.wrapOutboundOut(.end(nil)), promise: nil)
        }
        self.metrics.recordRequest(method: method, route: "unrouted", status: status.code, seconds: 0)
        // A connection that never sent a request and timed out is probing; a kept-alive one going quiet is not.
        if code != "request_timeout" || self.requestsSeen == 0 { self.noteRefusal(code, context: context) }
        self.logger.info(
            "request",
            metadata: [
                "request_id": .string(requestID), "method": .string(method), "route": .string("unrouted"),
                "status": .stringConvertible(status.code), "error": .string(code),
            ]
        )
        self.startLingering(context: context)
    }

    private func schedule(
        context: ChannelHandlerContext,
        after delay: Duration,
        _ action: @escaping (ConnectionGuard) -> Void
    ) {
        self.cancelTimer()
        let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
        self.timer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) { [self] in
            self.timer = nil
            action(self)
        }
    }

    private func cancelTimer() {
        self.timer?.cancel()
        self.timer = nil
    }
}
