public import AuthlogCore

extension JSONValue: ExpressibleByStringLiteral {
    /// A JSON string, so test bodies read like JSON.
    public init(stringLiteral value: String) { self = .string(value) }
}
