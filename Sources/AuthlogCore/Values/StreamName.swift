/// The name of an event stream, written `category-id` (for example `user-42`).
///
/// The category is the text before the first hyphen, as in Message DB. A bare category (`audit`)
/// names a stream of its own.
public struct StreamName: RawRepresentable, Hashable, Sendable, CustomStringConvertible, Codable {
    public let rawValue: String

    /// Creates a stream name, or `nil` if the category is not camelCase ASCII letters and digits
    /// or the id after the hyphen is empty.
    public init?(rawValue: String) {
        let category = rawValue.prefix { $0 != "-" }
        guard let first = category.unicodeScalars.first, first.properties.isLowercase,
            category.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
            })
        else { return nil }
        if category.count < rawValue.count {
            let id = rawValue.dropFirst(category.count + 1)
            guard !id.isEmpty, !id.utf8.contains(0) else { return nil }
        }
        self.rawValue = rawValue
    }

    /// Creates the name of the stream for one entity in `category`.
    public init(category: String, id: some CustomStringConvertible) {
        precondition(!category.isEmpty && !category.contains("-"), "category must be non-empty and hyphen-free")
        self.rawValue = "\(category)-\(id)"
    }

    /// The category, such as `user`.
    public var category: String { String(self.rawValue.prefix { $0 != "-" }) }

    /// The entity id after the first hyphen, or `nil` for a bare category.
    public var id: String? {
        let category = self.category
        guard category.count < self.rawValue.count else { return nil }
        return String(self.rawValue.dropFirst(category.count + 1))
    }

    public var description: String { self.rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let name = StreamName(rawValue: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a stream name")
        }
        self = name
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rawValue)
    }
}
