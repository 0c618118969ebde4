/// An event as stored: its envelope plus the position, commit time and chain hashes the sequencer gave it.
public struct RecordedEvent: Sendable, Equatable {
    /// Global, gapless, commit-ordered position (1, 2, 3, …).
    public var position: Int64
    /// The envelope; its `streamVersion` is always set.
    public var envelope: EventEnvelope
    /// When authlog committed it.
    public var recordedAt: Timestamp
    /// The previous event's hash (32 zero bytes before the first event).
    public var prevHash: [UInt8]
    /// `SHA-256(prevHash ‖ canonicalBytes)`.
    public var hash: [UInt8]

    /// Creates a recorded event.
    public init(position: Int64, envelope: EventEnvelope, recordedAt: Timestamp, prevHash: [UInt8], hash: [UInt8]) {
        self.position = position
        self.envelope = envelope
        self.recordedAt = recordedAt
        self.prevHash = prevHash
        self.hash = hash
    }

    /// The version within the stream.
    public var streamVersion: Int32 { self.envelope.streamVersion ?? 0 }
}
