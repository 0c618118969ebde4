import Foundation

extension WireTime {
    /// The time in member `key`.
    /// - Throws: `DecodingError` when it is missing or not in authlog's form.
    static func decode<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Date {
        let text = try container.decode(String.self, forKey: key)
        guard let date = Self.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not RFC 3339")
        }
        return date
    }

    /// The time in member `key`, or `nil` when it is absent or null.
    /// - Throws: `DecodingError` when it is not in authlog's form.
    static func decodeIfPresent<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> Date? {
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let date = Self.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not RFC 3339")
        }
        return date
    }
}
