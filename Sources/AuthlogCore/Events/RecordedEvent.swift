/// A sealed event as stored: its envelope plus the commit time, the digest of its canonical bytes, and the
/// position and leaf hash the sealer gave it.
public struct RecordedEvent: Sendable, Equatable {
    /// Global, gapless position in the log (1, 2, 3, …), in sealing order.
    public var position: Int64
    /// The envelope; its `streamVersion` is always set.
    public var envelope: EventEnvelope
    /// When authlog committed it.
    public var recordedAt: Timestamp
    /// SHA-256 of the event's canonical bytes (``CanonicalEventEncoding``), as stored.
    public var digest: [UInt8]
    /// The Merkle leaf hash, as stored: `SHA-256(0x00 ‖ position ‖ digest)`.
    public var leafHash: [UInt8]

    /// Creates a recorded event.
    public init(position: Int64, envelope: EventEnvelope, recordedAt: Timestamp, digest: [UInt8], leafHash: [UInt8]) {
        self.position = position
        self.envelope = envelope
        self.recordedAt = recordedAt
        self.digest = digest
        self.leafHash = leafHash
    }

    /// The version within the stream.
    public var streamVersion: Int32 { self.envelope.streamVersion ?? 0 }
}
