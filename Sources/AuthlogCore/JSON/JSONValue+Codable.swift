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
