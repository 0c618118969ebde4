import NIOCore
import NIOEmbedded
import Testing

@testable import AuthlogServer

/// What bounds a streamed export: the slots of a process, and the connection of a client that stops reading.
struct ExportStreamBoundsTests {
    /// One stream per key and four in all (the defaults); a slot comes back when the last reference to it goes
    /// (a stream that ended, failed, or whose answer was dropped before its body ran).
    @Test func oneSlotPerKeyAndFourInAllEachBackWhenItsLastReferenceGoes() throws {
        let slots = ExportStreamSlots()
        #expect(slots.limit == 4)
        var first: ExportStreamSlot? = try ExportStreamSlot.take(of: slots, key: "siem").get()
        #expect(throws: ExportStreamSlots.Busy.key) { try ExportStreamSlot.take(of: slots, key: "siem").get() }
        let others = try ["auditor", "backup", "archive"].map { try ExportStreamSlot.take(of: slots, key: $0).get() }
        #expect(throws: ExportStreamSlots.Busy.server) { try ExportStreamSlot.take(of: slots, key: "fifth").get() }
        first = nil
        let fifth = try ExportStreamSlot.take(of: slots, key: "fifth").get()
        #expect(throws: ExportStreamSlots.Busy.server, "the first one's came back and is taken again") {
            try ExportStreamSlot.take(of: slots, key: "siem").get()
        }
        withExtendedLifetime((first, others, fifth)) {}
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
