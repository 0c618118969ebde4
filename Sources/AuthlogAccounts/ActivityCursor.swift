public import AuthlogCore
import AuthlogCrypto
import Foundation

/// The opaque `after` cursor of `GET /v1/me/activity`: base64url of `<occurred_at µs>:<event id>`, the
/// place of the last event of the page before. Clients only pass it back.
public struct ActivityCursor: Sendable, Equatable {
    /// Where the next page starts (exclusive).
    public var position: ActivityPosition

    /// Creates the cursor of a position.
    public init(_ position: ActivityPosition) { self.position = position }

    /// Reads a cursor a client sent back; `nil` when it is not one this service made.
    public init?(text: String) {
        guard text.utf8.count <= 128, let bytes = Base64URL.decode(text) else { return nil }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].utf8.count == 36, let micros = Int64(parts[0]),
            (0...253_402_300_799_999_999).contains(micros),
            let eventID = UUID(uuidString: String(parts[1]))
        else { return nil }
        self.position = ActivityPosition(
            occurredAt: Timestamp(microsecondsSinceEpoch: micros),
            eventID: eventID
        )
    }

    /// The text given to the client.
    public var text: String {
        Base64URL.encode(
            Array("\(self.position.occurredAt.microsecondsSinceEpoch):\(self.position.eventID.lowercased)".utf8)
        )
    }
}
