
extension JSONValue {
    /// Encodes a value with snake_case member names (see ``JSONValueEncoder``).
    /// - Throws: `EncodingError` when the value cannot be encoded (a non-finite number).
    public init(encoding value: some Encodable) throws {
        self = try JSONValueEncoder.encode(value)
    }

    /// Decodes this document into `type`, reading snake_case keys.
    /// - Throws: `DecodingError` when the document does not have the shape of `type`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONValueDecoder(value: self).decodeValue(type)
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
