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
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
