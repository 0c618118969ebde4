/// Encodes `Encodable` values straight into a ``JSONValue``, writing camelCase properties as snake_case
/// members (`accessTokenID` → `access_token_id`), the inverse of ``JSONValueDecoder``.
struct JSONValueEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: EncodingNode = EncodingNode(), codingPath: [any CodingKey] = []) {
        self.node = node
        self.codingPath = codingPath
    }

    /// Encodes `value` and returns the document.
    static func encode(_ value: some Encodable) throws -> JSONValue {
        let encoder = JSONValueEncoder()
        try value.encode(to: encoder)
        return encoder.node.json
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        self.node.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: self.node, codingPath: self.codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        self.node.becomeArray()
        return UnkeyedContainer(node: self.node, codingPath: self.codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: self.node, codingPath: self.codingPath)
    }
}

/// A mutable node of the document being built; containers share it by reference.
final class EncodingNode {
    private enum Content {
        case empty
        case value(JSONValue)
        case object([(name: String, node: EncodingNode)])
        case array([EncodingNode])
    }

    private var content = Content.empty

    func becomeObject() {
        if case .object = self.content { return }
        self.content = .object([])
    }

    func becomeArray() {
        if case .array = self.content { return }
        self.content = .array([])
    }

    func set(_ value: JSONValue) { self.content = .value(value) }

    /// A new child node under `name` (this node must be an object).
    func child(named name: String) -> EncodingNode {
        let node = EncodingNode()
        if case .object(var members) = self.content {
            members.removeAll { $0.name == name }
            members.append((name, node))
            self.content = .object(members)
        }
        return node
    }

    /// A new child node at the end (this node must be an array).
    func appendChild() -> EncodingNode {
        let node = EncodingNode()
        if case .array(var elements) = self.content {
            elements.append(node)
            self.content = .array(elements)
        }
        return node
    }

    var count: Int {
        if case .array(let elements) = self.content { return elements.count }
        return 0
    }

    var json: JSONValue {
        switch self.content {
        case .empty: return .emptyObject
        case .value(let value): return value
        case .object(let members): return .object(members.map { ($0.name, $0.node.json) })
        case .array(let elements): return .array(elements.map(\.json))
        }
    }
}

/// Encodes one primitive into a node; shared by all three container kinds.
private enum Primitive {
    static func number(_ value: Double, codingPath: [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "not finite"))
        }
        if value == value.rounded(), abs(value) < 1e15 { return .number(String(Int64(value))) }
        return .number(String(value))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    private func child(_ key: Key) -> EncodingNode { self.node.child(named: snakeCase(fromCamelCase: key.stringValue)) }

    mutating func encodeNil(forKey key: Key) throws { self.child(key).set(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { self.child(key).set(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { self.child(key).set(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        self.child(key).set(try Primitive.number(value, codingPath: self.codingPath + [key]))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { self.child(key).set(.number(String(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { self.child(key).set(.number(String(value))) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try value.encode(to: JSONValueEncoder(node: self.child(key), codingPath: self.codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        JSONValueEncoder(node: self.child(key), codingPath: self.codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        JSONValueEncoder(node: self.child(key), codingPath: self.codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { JSONValueEncoder(node: self.node, codingPath: self.codingPath) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        JSONValueEncoder(node: self.child(key), codingPath: self.codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var count: Int { self.node.count }

    private func next() -> (EncodingNode, [any CodingKey]) {
        let path = self.codingPath + [JSONIndexKey(self.node.count)]
        return (self.node.appendChild(), path)
    }

    mutating func encodeNil() throws { self.next().0.set(.null) }
    mutating func encode(_ value: Bool) throws { self.next().0.set(.bool(value)) }
    mutating func encode(_ value: String) throws { self.next().0.set(.string(value)) }
    mutating func encode(_ value: Int) throws { self.next().0.set(.number(String(value))) }
    mutating func encode(_ value: Double) throws {
        let (child, path) = self.next()
        child.set(try Primitive.number(value, codingPath: path))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let (child, path) = self.next()
        try value.encode(to: JSONValueEncoder(node: child, codingPath: path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let (child, path) = self.next()
        return JSONValueEncoder(node: child, codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (child, path) = self.next()
        return JSONValueEncoder(node: child, codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let (child, path) = self.next()
        return JSONValueEncoder(node: child, codingPath: path)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { self.node.set(.null) }
    mutating func encode(_ value: Bool) throws { self.node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { self.node.set(.string(value)) }
    mutating func encode(_ value: Double) throws {
        self.node.set(try Primitive.number(value, codingPath: self.codingPath))
    }
    mutating func encode(_ value: Float) throws { try self.encode(Double(value)) }
    mutating func encode(_ value: Int) throws { self.node.set(.number(String(value))) }
    mutating func encode(_ value: Int8) throws { self.node.set(.number(String(value))) }
    mutating func encode(_ value: Int16) throws { self.node.set(.number(String(value))) }
    mutating func encode(_ value: Int32) throws { self.node.set(.number(String(value))) }
    mutating func encode(_ value: Int64) throws { self.node.set(.number(String(value))) }
    mutating func encode(_ value: UInt) throws { self.node.set(.number(String(value))) }
    mutating func encode(_ value: UInt8) throws { self.node.set(.number(String(value))) }
    mutating func encode(_ value: UInt16) throws { self.node.set(.number(String(value))) }
    mutating func encode(_ value: UInt32) throws { self.node.set(.number(String(value))) }
    mutating func encode(_ value: UInt64) throws { self.node.set(.number(String(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try value.encode(to: JSONValueEncoder(node: self.node, codingPath: self.codingPath))
    }
}
