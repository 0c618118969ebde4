/// Types and JSON values named for people rather than for Swift: `a whole number`, `a list of text`,
/// `text "8080x"`.
enum PlainWords {
    /// What a value of `type` is, with an article (`a whole number`), or in the plural (`whole numbers`).
    static func describe(_ type: Any.Type, plural: Bool = false) -> String {
        if let optional = type as? any OptionalShaped.Type {
            return self.describe(optional.wrappedType, plural: plural)
        }
        if let list = type as? any ListShaped.Type {
            return plural ? "lists" : "a list of " + self.describe(list.elementType, plural: true)
        }
        if type == String.self || type == Substring.self { return "text" }
        if type == Bool.self { return plural ? "true or false values" : "true or false" }
        if type is any BinaryInteger.Type { return plural ? "whole numbers" : "a whole number" }
        if type is any BinaryFloatingPoint.Type { return plural ? "numbers" : "a number" }
        return plural ? "objects" : "an object"
    }

    /// Whether a value of `type` is text (`String`, optional or not).
    static func isText(_ type: Any.Type) -> Bool {
        if let optional = type as? any OptionalShaped.Type { return self.isText(optional.wrappedType) }
        return type == String.self
    }

    /// `value` as a message quotes it: `text "8080x"`, `the number 42`, `a list`, `an object`, `true`, `null`.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let text): return "the number \(text)"
        case .string(let text):
            let shown = text.count > 40 ? String(text.prefix(37)) + "…" : text
            return "text \"\(shown)\""
        case .array: return "a list"
        case .object: return "an object"
        }
    }
}

/// `Optional`, seen through a metatype.
protocol OptionalShaped {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalShaped {
    static var wrappedType: Any.Type { Wrapped.self }
}

/// `Array`, seen through a metatype.
protocol ListShaped {
    static var elementType: Any.Type { get }
}

extension Array: ListShaped {
    static var elementType: Any.Type { Element.self }
}
