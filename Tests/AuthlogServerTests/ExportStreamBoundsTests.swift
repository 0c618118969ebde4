import NIOCore
import NIOEmbedded
import Testing

@testable import AuthlogServer

/// What bounds a streamed export: the slots of a process, and the connection of a client that stops reading.
struct ExportStreamBoundsTests {
    /// Past the limit no slot is given; one comes back when the last reference to a taken one goes (a stream
    /// that ended, failed, or whose answer was dropped before its body ran).
    @Test func aSlotComesBackWhenItsLastReferenceGoes() {
        let slots = ExportStreamSlots(limit: 2)
        var first = ExportStreamSlot(of: slots)
        let second = ExportStreamSlot(of: slots)
        #expect(first != nil && second != nil)
        #expect(ExportStreamSlot(of: slots) == nil, "both taken")
        first = nil
        let third = ExportStreamSlot(of: slots)
        #expect(third != nil, "the first one's came back")
        #expect(ExportStreamSlot(of: slots) == nil)
        withExtendedLifetime((first, second, third)) {}
    }

    /// An answer that waits on a client that stopped reading closes the connection after the timeout; a client
    /// that catches up in time keeps it, and the clock starts again at its next stall.
    @Test func aReaderStalledPastTheTimeoutIsClosedAndOneThatCatchesUpIsNot() throws {
        let channel = EmbeddedChannel(handler: StalledReaderGuard(timeout: .seconds(30)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(29))
        #expect(channel.isActive, "not yet")
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(120))
        #expect(channel.isActive, "it caught up: the timer was cancelled")
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(29))
        #expect(channel.isActive, "a new stall starts a new clock")
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive, "stalled for the whole timeout: closed")
    }
}
