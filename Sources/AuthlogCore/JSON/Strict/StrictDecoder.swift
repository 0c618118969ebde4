/// A `Decoder` over a ``JSONValue`` for documents people write (the configuration file): it reads snake_case
/// member names for camelCase properties as ``JSONValueDecoder`` does, and also records in a
/// ``StrictDecodingLedger`` which members were asked for, and names every mismatch in plain words
/// (``StrictDecodingError``). Payloads keep the lighter ``JSONValueDecoder``.
struct StrictDecoder: Decoder {
    let value: JSONValue
    let path: MemberPath
    let ledger: StrictDecodingLedger

    var codingPath: [any CodingKey] { self.path.codingKeys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The decoder of `value`, found at `segment` below this one.
    func child(_ segment: MemberPath.Segment, _ value: JSONValue) -> StrictDecoder {
        StrictDecoder(value: value, path: self.path.appending(segment), ledger: self.ledger)
    }

    /// The error for this value when `expected` was wanted.
    func mismatch(_ expected: String) -> StrictDecodingError {
        StrictDecodingError(
            path: self.path,
            problem: .wrongType(expected: expected, found: PlainWords.describe(self.value))
        )
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = self.value else { throw self.mismatch("an object") }
        self.ledger.open(self.path, present: members.map(\.name))
        return KeyedDecodingContainer(StrictKeyedContainer<Key>(members: members, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = self.value else { throw self.mismatch("a list") }
        return StrictUnkeyedContainer(elements: elements, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        StrictSingleValueContainer(decoder: self)
    }

    /// Decodes `type` from this decoder's value, or from the text override at its path.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if let text = self.ledger.textOverrides[self.path] {
            if PlainWords.isText(type) { return try self.replacing(with: .string(text)).decodeShaped(type) }
            guard let parsed = try? JSONParser().parse(text) else {
                throw StrictDecodingError(
                    path: self.path,
                    problem: .wrongType(expected: PlainWords.describe(type), found: PlainWords.describe(.string(text)))
                )
            }
            return try self.replacing(with: parsed).decodeShaped(type)
        }
        return try self.decodeShaped(type)
    }

    private func replacing(with value: JSONValue) -> StrictDecoder {
        StrictDecoder(value: value, path: self.path, ledger: self.ledger)
    }

    /// Decodes `type`, checking first the shapes a type's own initialiser could not name: a list (whose
    /// element type the unkeyed container never learns) and a dictionary keyed by free names.
    private func decodeShaped<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self is any ListShaped.Type, !self.value.isArray {
            throw self.mismatch(PlainWords.describe(type))
        }
        if let dictionary = T.self as? any FreeNamedMembers.Type {
            guard let decoded = try dictionary.decodeMembers(from: self) as? T else { throw self.mismatch("an object") }
            return decoded
        }
        return try T(from: self)
    }
}

extension JSONValue {
    /// Whether this is an array.
    var isArray: Bool {
        if case .array = self { return true }
        return false
    }
}

/// A dictionary keyed by names the document chooses (`providers.oidc`): every member is decoded under its
/// name exactly as written, and none is unknown.
protocol FreeNamedMembers {
    static func decodeMembers(from decoder: StrictDecoder) throws -> Self
}

extension Dictionary: FreeNamedMembers where Key == String, Value: Decodable {
    static func decodeMembers(from decoder: StrictDecoder) throws -> Self {
        guard case .object(let members) = decoder.value else { throw decoder.mismatch("an object") }
        var result: [String: Value] = [:]
        for member in members {
            result[member.name] = try decoder.child(.member(member.name), member.value).decodeValue(Value.self)
        }
        return result
    }
}
