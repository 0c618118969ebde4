extension JSONValue {
    /// The value of an integer number (no fraction, no exponent) that fits in 64 bits.
    public var integerValue: Int64? {
        guard case .number(let text) = self, !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else {
            return nil
        }
        return Int64(text)
    }

    /// The boolean value, if this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The members, if this is an object.
    public var objectMembers: [(name: String, value: JSONValue)]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
