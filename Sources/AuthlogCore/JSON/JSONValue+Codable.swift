import Foundation

extension JSONValue {
    /// Encodes a `Codable` value with snake_case keys and parses the result.
    /// - Throws: `EncodingError` when the value cannot be encoded.
    public init(encoding value: some Encodable) throws {
        let data = try JSONValue.encoder.encode(value)
        do {
            self = try JSONParser().parse(data)
        } catch {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "\(error)"))
        }
    }

    /// Decodes this document into `type`, reading snake_case keys.
    /// - Throws: `DecodingError` when the document does not have the shape of `type`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONValue.decoder.decode(type, from: Data(self.canonicalBytes))
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            let stored = path.last?.stringValue ?? ""
            return JSONKey(camelCase(fromSnakeCase: stored))
        }
        return decoder
    }
}

/// `access_token_id` → `accessTokenID`: snake_case to camelCase with the acronym `ID` kept upper case,
/// the inverse of `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase` for this module's property names.
func camelCase(fromSnakeCase key: String) -> String {
    let words = key.split(separator: "_", omittingEmptySubsequences: true)
    guard let first = words.first else { return key }
    return String(first) + words.dropFirst().map { word in
        word == "id" ? "ID" : word.prefix(1).uppercased() + word.dropFirst()
    }.joined()
}

private struct JSONKey: CodingKey {
    let stringValue: String
    let intValue: Int? = nil
    init(_ string: String) { self.stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
