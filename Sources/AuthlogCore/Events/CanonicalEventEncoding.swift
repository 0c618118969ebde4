/// The deterministic byte form of an event whose SHA-256 digest the log's leaf covers, documented in
/// docs/events.md ("Canonical bytes").
///
/// Layout: the ASCII tag `authlog.event.v2`, then every field in a fixed order, each as one presence byte
/// (`0` absent, `1` present) followed, when present, by a 4-byte big-endian length and the bytes:
///
/// 1. event_id (lowercase UUID) 2. stream 3. stream_version (decimal) 4. type
/// 5. occurred_at (microseconds since the epoch, decimal) 6. recorded_at (same) 7. outcome 8. reason
/// 9. provider 10. user_id 11. session_id 12. client_id 13. ip (4 or 16 raw bytes) 14. user_agent
/// 15. request_id 16. data (canonical JSON, see ``JSONValue/canonicalText``) 17. schema_version (decimal)
///
/// Length prefixes make the encoding unambiguous. The position is not part of it: a writer commits an event
/// before the sealer gives it a position, and the leaf data binds the digest to the position instead.
/// The `authlog.event.v1` layout (the same fields with the position first) is what the single-writer chain
/// of earlier versions hashed; ``legacyBytes(position:envelope:recordedAt:)`` keeps it for checking that
/// chain while it is moved into the tree.
public enum CanonicalEventEncoding {
    /// The tag that starts every encoding; a new layout gets a new tag.
    public static let tag = Array("authlog.event.v2".utf8)

    /// The canonical bytes of `envelope` committed at `recordedAt`.
    public static func bytes(envelope: EventEnvelope, recordedAt: Timestamp) -> [UInt8] {
        self.encode(tag: Self.tag, position: nil, envelope: envelope, recordedAt: recordedAt)
    }

    /// The `authlog.event.v1` bytes of an event of the old single-writer chain, which began with the position.
    public static func legacyBytes(position: Int64, envelope: EventEnvelope, recordedAt: Timestamp) -> [UInt8] {
        self.encode(tag: Array("authlog.event.v1".utf8), position: position, envelope: envelope, recordedAt: recordedAt)
    }

    private static func encode(
        tag: [UInt8],
        position: Int64?,
        envelope: EventEnvelope,
        recordedAt: Timestamp
    )
        -> [UInt8]
    {
        var output = tag
        output.reserveCapacity(512)
        func field(_ bytes: some Collection<UInt8>) {
            output.append(1)
            let count = UInt32(bytes.count)
            output.append(contentsOf: [
                UInt8(truncatingIfNeeded: count >> 24), UInt8(truncatingIfNeeded: count >> 16),
                UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count),
            ])
            output.append(contentsOf: bytes)
        }
        func text(_ value: String?) {
            if let value { field(value.utf8) } else { output.append(0) }
        }
        if let position { text(String(position)) }
        text(envelope.eventID.lowercased)
        text(envelope.stream.rawValue)
        text(envelope.streamVersion.map { String($0) })
        text(envelope.type.rawValue)
        text(String(envelope.occurredAt.microsecondsSinceEpoch))
        text(String(recordedAt.microsecondsSinceEpoch))
        text(envelope.outcome.rawValue)
        text(envelope.reason)
        text(envelope.provider)
        text(envelope.userID?.lowercased)
        text(envelope.sessionID?.lowercased)
        text(envelope.clientID)
        if let ip = envelope.ip { field(ip.bytes) } else { output.append(0) }
        text(envelope.userAgent)
        text(envelope.requestID)
        field(envelope.data.canonicalBytes)
        text(String(envelope.schemaVersion))
        return output
    }

    /// The hash that preceded the first event of the old chain.
    public static let legacyGenesisHash = [UInt8](repeating: 0, count: 32)
}
