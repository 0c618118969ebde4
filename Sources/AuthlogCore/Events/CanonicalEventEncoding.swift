/// The deterministic byte form of an event that the hash chain covers, documented in docs/events.md.
///
/// Layout: the ASCII tag `authlog.event.v1`, then every field in a fixed order, each as one presence byte
/// (`0` absent, `1` present) followed, when present, by a 4-byte big-endian length and the bytes:
///
/// 1. position (decimal) 2. event_id (lowercase UUID) 3. stream 4. stream_version (decimal) 5. type
/// 6. occurred_at (microseconds since the epoch, decimal) 7. recorded_at (same) 8. outcome 9. reason
/// 10. provider 11. user_id 12. session_id 13. client_id 14. ip (4 or 16 raw bytes) 15. user_agent
/// 16. request_id 17. data (canonical JSON, see ``JSONValue/canonicalText``) 18. schema_version (decimal)
///
/// Length prefixes make the encoding unambiguous; the position inside makes swapped rows detectable.
public enum CanonicalEventEncoding {
    /// The tag that starts every encoding; a new layout gets a new tag.
    public static let tag = Array("authlog.event.v1".utf8)

    /// The canonical bytes of `envelope` stored at `position` and committed at `recordedAt`.
    public static func bytes(position: Int64, envelope: EventEnvelope, recordedAt: Timestamp) -> [UInt8] {
        var output = Self.tag
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
        text(String(position))
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

    /// The hash that precedes the first event.
    public static let genesisHash = [UInt8](repeating: 0, count: 32)
}
