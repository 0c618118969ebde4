/// A JSON document as parsed by ``JSONParser``: objects keep their members in the order they were read.
///
/// Numbers keep their original text so that no precision is lost; ``canonicalText`` normalises them.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, as its validated JSON text.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// An object's members in document order; names are unique (the parser rejects duplicates).
    case object([(name: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.canonicalText == rhs.canonicalText
    }

    /// The member called `name`, if this is an object that has one.
    public subscript(name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name.hasSameBytes(as: name) }?.value
    }

    /// The string value, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Whether this is an object.
    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// An empty object.
    public static let emptyObject = JSONValue.object([])
}
