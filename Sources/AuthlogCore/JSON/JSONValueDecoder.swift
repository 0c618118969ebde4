/// Decodes `Decodable` values straight from a ``JSONValue``, reading snake_case member names for
/// camelCase properties (`accessTokenID` reads `access_token_id`).
///
/// Foundation's `JSONDecoder` costs about a hundred microseconds per small payload here, because it
/// re-parses bytes; this walks the already-parsed value and is what validation and the reducers use.
struct JSONValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(value: JSONValue, codingPath: [any CodingKey] = []) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = self.value else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(codingPath: self.codingPath, debugDescription: "expected an object")
            )
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: self.codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = self.value else {
            throw DecodingError.typeMismatch(
                [Any].self,
                .init(codingPath: self.codingPath, debugDescription: "expected an array")
            )
        }
        return UnkeyedContainer(elements: elements, codingPath: self.codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: self.value, codingPath: self.codingPath)
    }
}

/// Payloads have a handful of members, so a linear search of the parsed members (names are unique: the
/// parser refuses duplicates) is cheaper than building a dictionary for every container.
private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(name: String, value: JSONValue)]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { self.members.compactMap { Key(stringValue: camelCase(fromSnakeCase: $0.name)) } }

    private func member(_ key: Key) -> JSONValue? {
        let name = snakeCase(fromCamelCase: key.stringValue)
        return self.members.first { $0.name.hasSameBytes(as: name) }?.value
    }

    func contains(_ key: Key) -> Bool { self.member(key) != nil }

    private func value(for key: Key) throws -> JSONValue {
        guard let value = self.member(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: self.codingPath, debugDescription: "missing"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try self.value(for: key).isNull }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try JSONValueDecoder(value: try self.value(for: key), codingPath: self.codingPath + [key]).decodeValue(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = self.member(key), !value.isNull else { return nil }
        return try JSONValueDecoder(value: value, codingPath: self.codingPath + [key]).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try JSONValueDecoder(value: try self.value(for: key), codingPath: self.codingPath + [key]).container(
            keyedBy: type
        )
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try JSONValueDecoder(value: try self.value(for: key), codingPath: self.codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { JSONValueDecoder(value: .object([]), codingPath: self.codingPath) }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONValueDecoder(value: try self.value(for: key), codingPath: self.codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { self.elements.count }
    var isAtEnd: Bool { self.currentIndex >= self.elements.count }

    private mutating func next() throws -> JSONValueDecoder {
        guard !self.isAtEnd else {
            throw DecodingError.valueNotFound(
                JSONValue.self,
                .init(codingPath: self.codingPath, debugDescription: "no more elements")
            )
        }
        defer { self.currentIndex += 1 }
        return JSONValueDecoder(
            value: self.elements[self.currentIndex],
            codingPath: self.codingPath + [JSONIndexKey(self.currentIndex)]
        )
    }

    mutating func decodeNil() throws -> Bool {
        guard !self.isAtEnd, self.elements[self.currentIndex].isNull else { return false }
        self.currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try self.next().decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try self.next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try self.next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try self.next() }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    private func mismatch<T>(_ type: T.Type) -> DecodingError {
        .typeMismatch(type, .init(codingPath: self.codingPath, debugDescription: "expected \(type)"))
    }

    func decodeNil() -> Bool { self.value.isNull }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = self.value else { throw self.mismatch(type) }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = self.value else { throw self.mismatch(type) }
        return text
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard case .number(let text) = self.value, let number = Double(text) else { throw self.mismatch(type) }
        return number
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try self.decode(Double.self)) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let text) = self.value else { throw self.mismatch(type) }
        if let exact = T(text) { return exact }
        guard let canonical = CanonicalNumber(validatedJSONNumber: text), let value = T(canonical.text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: self.codingPath, debugDescription: "\(text) is not a whole \(type)")
            )
        }
        return value
    }

    func decode(_ type: Int.Type) throws -> Int { try self.integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try self.integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try self.integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try self.integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try self.integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try self.integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try self.integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try self.integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try self.integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try self.integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONValueDecoder(value: self.value, codingPath: self.codingPath).decodeValue(type)
    }
}

extension JSONValueDecoder {
    /// Decodes `type` from this decoder's value.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        try T(from: self)
    }
}
