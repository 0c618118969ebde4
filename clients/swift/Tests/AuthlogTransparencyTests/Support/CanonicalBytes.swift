import AuthlogTransparency

/// Canonical event bytes (`authlog.event.v2`) laid out field by field as the server's encoder does
/// (`CanonicalEventEncoding`; the server's tests check that encoder against ``CanonicalEvent``), for tests of
/// the parser and of receipt batches.
enum CanonicalBytes {
    /// The tag followed by `fields`, each a presence byte and, when present, a 4-byte length and the bytes.
    static func encode(_ fields: [[UInt8]?]) -> [UInt8] {
        var output = CanonicalEvent.tag
        for field in fields {
            guard let field else {
                output.append(0)
                continue
            }
            let count = UInt32(field.count)
            output += [1, UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
            output += field
        }
        return output
    }

    /// The 17 fields of a sign-in of the user `userID` in the session `sessionID`, in order.
    static func fields(
        eventID: String,
        type: String = "signin.succeeded",
        userID: String = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
        sessionID: String? = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c",
        userAgent: String? = "Authlog/1.0 (iPhone; café)"
    ) -> [[UInt8]?] {
        let text: (String?) -> [UInt8]? = { $0.map { Array($0.utf8) } }
        return [
            text(eventID), text("user-\(userID)"), text("3"), text(type), text("1795600000123456"),
            text("1795600000234567"), text("success"), nil, text("apple"), text(userID), text(sessionID),
            text("com.example.app"), [192, 0, 2, 1], text(userAgent), text("req-1"), text(#"{"method":"apple"}"#),
            text("1"),
        ]
    }

    /// The bytes of ``fields(eventID:type:userID:sessionID:userAgent:)``.
    static func event(eventID: String, type: String = "signin.succeeded") -> [UInt8] {
        self.encode(self.fields(eventID: eventID, type: type))
    }
}
