/// The members of one object, each looked up by the snake_case spelling of its key and recorded as asked for.
struct StrictKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(name: String, value: JSONValue)]
    let decoder: StrictDecoder

    var codingPath: [any CodingKey] { self.decoder.codingPath }

    var allKeys: [Key] {
        self.decoder.ledger.askForEverything(at: self.decoder.path)
        return self.members.compactMap { Key(stringValue: camelCase(fromSnakeCase: $0.name)) }
    }

    private func name(_ key: Key) -> String { snakeCase(fromCamelCase: key.stringValue) }

    private func member(_ key: Key) -> JSONValue? {
        let name = self.name(key)
        self.decoder.ledger.ask(name, at: self.decoder.path)
        return self.members.first { $0.name == name }?.value
    }

    private func child<T>(_ key: Key, expecting type: T.Type) throws -> StrictDecoder {
        guard let value = self.member(key) else {
            throw StrictDecodingError(
                path: self.decoder.path.appending(.member(self.name(key))),
                problem: .missing(expected: PlainWords.describe(type))
            )
        }
        return self.decoder.child(.member(self.name(key)), value)
    }

    func contains(_ key: Key) -> Bool { self.member(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { try self.child(key, expecting: Any?.self).value.isNull }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try self.child(key, expecting: type).decodeValue(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = self.member(key), !value.isNull else { return nil }
        return try self.decoder.child(.member(self.name(key)), value).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try self.child(key, expecting: [String: String].self).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try self.child(key, expecting: [Any].self).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        StrictDecoder(value: .object([]), path: self.decoder.path, ledger: self.decoder.ledger)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try self.child(key, expecting: Any.self) }
}

/// The elements of one array, each decoded at its index.
struct StrictUnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let decoder: StrictDecoder
    var currentIndex = 0

    init(elements: [JSONValue], decoder: StrictDecoder) {
        self.elements = elements
        self.decoder = decoder
    }

    var codingPath: [any CodingKey] { self.decoder.codingPath }
    var count: Int? { self.elements.count }
    var isAtEnd: Bool { self.currentIndex >= self.elements.count }

    private mutating func next<T>(expecting type: T.Type) throws -> StrictDecoder {
        guard !self.isAtEnd else {
            throw StrictDecodingError(
                path: self.decoder.path.appending(.index(self.currentIndex)),
                problem: .missing(expected: PlainWords.describe(type))
            )
        }
        defer { self.currentIndex += 1 }
        return self.decoder.child(.index(self.currentIndex), self.elements[self.currentIndex])
    }

    mutating func decodeNil() throws -> Bool {
        guard !self.isAtEnd, self.elements[self.currentIndex].isNull else { return false }
        self.currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try self.next(expecting: type).decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try self.next(expecting: [String: String].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try self.next(expecting: [Any].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try self.next(expecting: Any.self) }
}

/// One value of a primitive type, refused in plain words when it has another shape.
struct StrictSingleValueContainer: SingleValueDecodingContainer {
    let decoder: StrictDecoder

    var codingPath: [any CodingKey] { self.decoder.codingPath }

    func decodeNil() -> Bool { self.decoder.value.isNull }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = self.decoder.value else { throw self.decoder.mismatch(PlainWords.describe(type)) }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = self.decoder.value else { throw self.decoder.mismatch("text") }
        return text
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard case .number(let text) = self.decoder.value, let number = Double(text) else {
            throw self.decoder.mismatch(PlainWords.describe(type))
        }
        return number
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try self.decode(Double.self)) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let text) = self.decoder.value else { throw self.decoder.mismatch("a whole number") }
        if let exact = T(text) { return exact }
        guard let canonical = CanonicalNumber(validatedJSONNumber: text), let value = T(canonical.text) else {
            let isWhole = Double(text).map { $0.rounded() == $0 } ?? false
            throw self.decoder.mismatch(isWhole ? "a whole number from \(T.min) to \(T.max)" : "a whole number")
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

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try self.decoder.decodeValue(type) }
}
