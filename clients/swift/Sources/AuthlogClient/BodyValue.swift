/// A JSON value in a request body the client sends.
enum BodyValue: Encodable, Sendable, Hashable {
    case string(String)
    case bool(Bool)
    case int(Int)
    case object([String: BodyValue])

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .object(let members): try container.encode(members)
        }
    }
}
