/// The one normalising rule for every free-text value that reaches an event's envelope (`reason`,
/// `provider`, `client_id`, `user_agent`, `request_id`) and for request-supplied strings inside `data`.
///
/// Whatever a client sends, the result can always be stored and validated:
/// - blank (empty or only white space) becomes `nil`, as if the value had not been sent;
/// - control characters (U+0000–U+001F, U+007F–U+009F) are written out as `\u{…}` escapes, so nothing is
///   lost to the reader and PostgreSQL, which cannot store U+0000, never refuses the row;
/// - a value longer than its field's limit is cut at a character boundary, never refused.
public enum EnvelopeText {
    /// The longest value kept for each field, in UTF-8 bytes (docs/events.md).
    public enum Limit {
        /// `user_agent`.
        public static let userAgent = 512
        /// `client_id`.
        public static let clientID = 256
        /// `request_id`.
        public static let requestID = 128
        /// `reason` and `provider`: machine-readable codes and names.
        public static let code = 128
    }

    /// `value` normalised for a field that keeps at most `limit` UTF-8 bytes; `nil` when blank.
    public static func normalized(_ value: String?, limit: Int) -> String? {
        guard let value, value.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else { return nil }
        let escaped = Self.escapingControlCharacters(value)
        return Self.truncated(escaped, toUTF8Bytes: limit)
    }

    /// `value` with each control character replaced by its `\u{XXXX}` escape.
    static func escapingControlCharacters(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: Self.isControl) else { return value }
        var result = ""
        result.unicodeScalars.reserveCapacity(value.unicodeScalars.count + 8)
        for scalar in value.unicodeScalars {
            if Self.isControl(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `value` cut to at most `limit` UTF-8 bytes at a character boundary.
    static func truncated(_ value: String, toUTF8Bytes limit: Int) -> String {
        guard value.utf8.count > limit else { return value }
        var result = ""
        var used = 0
        for character in value {
            let size = character.utf8.count
            if used + size > limit { break }
            result.append(character)
            used += size
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
