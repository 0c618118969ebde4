import AuthlogCrypto
import Foundation

/// The id of an event that must be stored once however often its append is tried again — by this process after
/// an answer lost with its connection, or by another that took the work over: a name-based (version 8) UUID
/// from the SHA-256 of `authlog.<kind>.v1` and `parts`, separated by NUL bytes. Appending an event whose id is
/// stored already stores nothing (``EventStore``).
enum OnceEventID {
    /// The id of the `kind` event named by `parts` (what makes it one: a sink and its run's start, a process and
    /// an outage's start).
    static func make(_ kind: String, _ parts: String...) -> UUID {
        let name = (["authlog.\(kind).v1"] + parts).joined(separator: "\u{0}")
        return UUID(version: 8, bytes: SHA256.hash(Array(name.utf8)))
    }
}
