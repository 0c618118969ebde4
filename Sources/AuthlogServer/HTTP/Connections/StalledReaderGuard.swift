import NIOCore

/// Closes a connection whose client stops reading an answer: when the channel has stayed unwritable (its
/// outbound buffer above NIO's high-water mark) for ``ConnectionLimits/writeStallTimeout``. A long answer (a
/// streamed export) waits for its reader while the reader keeps up, however long that takes; a reader that
/// stalls cannot hold the answer's pages, its stream slot and the connection forever. Closing fails the
/// pending writes, so the route's body writer ends with an error and lets go of what it holds.
final class StalledReaderGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let timeout: Duration
    private var timer: Scheduled<Void>?

    init(timeout: Duration) { self.timeout = timeout }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            self.timer?.cancel()
            self.timer = nil
        } else if self.timer == nil {
            let nanoseconds =
                self.timeout.components.seconds * 1_000_000_000 + self.timeout.components.attoseconds / 1_000_000_000
            self.timer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(nanoseconds)) { [self] in
                self.timer = nil
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.timer?.cancel()
        self.timer = nil
        context.fireChannelInactive()
    }
}
