/// A strict JSON parser (RFC 8259): no trailing commas, no comments, no duplicate member names,
/// valid UTF-8 and escapes only, bounded nesting depth.
public struct JSONParser: Sendable {
    /// Why a document was refused.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case malformed(offset: Int, reason: String)
        case duplicateMember(String)
        case tooDeep

        public var description: String {
            switch self {
            case .malformed(let offset, let reason): return "malformed JSON at byte \(offset): \(reason)"
            case .duplicateMember(let name): return "duplicate member name \"\(name)\""
            case .tooDeep: return "JSON nested too deeply"
            }
        }
    }

    /// The deepest nesting of arrays and objects accepted.
    public var maximumDepth: Int

    /// Creates a parser that accepts nesting up to `maximumDepth` levels.
    public init(maximumDepth: Int = 64) {
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON document; white space may surround it, nothing else may follow it.
    /// - Throws: ``Failure`` describing the first problem.
    public func parse(_ bytes: some Collection<UInt8>) throws(Failure) -> JSONValue {
        var reader = Reader(bytes: Array(bytes), maximumDepth: self.maximumDepth)
        reader.skipWhitespace()
        let value = try reader.readValue(depth: 0)
        reader.skipWhitespace()
        guard reader.isAtEnd else { throw reader.failure("unexpected text after the document") }
        return value
    }

    /// Parses one JSON document from text.
    /// - Throws: ``Failure`` describing the first problem.
    public func parse(_ text: String) throws(Failure) -> JSONValue {
        try self.parse(Array(text.utf8))
    }
}

private struct Reader {
    let bytes: [UInt8]
    let maximumDepth: Int
    var index = 0

    var isAtEnd: Bool { self.index >= self.bytes.count }

    func failure(_ reason: String) -> JSONParser.Failure {
        .malformed(offset: self.index, reason: reason)
    }

    mutating func skipWhitespace() {
        while self.index < self.bytes.count {
            switch self.bytes[self.index] {
            case 0x20, 0x09, 0x0A, 0x0D: self.index += 1
            default: return
            }
        }
    }

    mutating func readValue(depth: Int) throws(JSONParser.Failure) -> JSONValue {
        guard depth <= self.maximumDepth else { throw .tooDeep }
        guard !self.isAtEnd else { throw self.failure("unexpected end of input") }
        switch self.bytes[self.index] {
        case UInt8(ascii: "{"): return try self.readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try self.readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try self.readString())
        case UInt8(ascii: "t"):
            try self.expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try self.expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try self.expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try self.readNumber())
        default: throw self.failure("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParser.Failure) {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard self.index + expected.count <= self.bytes.count,
            self.bytes[self.index..<self.index + expected.count].elementsEqual(expected)
        else { throw self.failure("invalid literal") }
        self.index += expected.count
    }

    mutating func readObject(depth: Int) throws(JSONParser.Failure) -> JSONValue {
        guard depth <= self.maximumDepth else { throw .tooDeep }
        self.index += 1
        var members: [(name: String, value: JSONValue)] = []
        var seen = Set<[UInt8]>()  // used once an object grows past 16 members
        self.skipWhitespace()
        if self.peek(UInt8(ascii: "}")) {
            self.index += 1
            return .object(members)
        }
        while true {
            self.skipWhitespace()
            guard self.peek(UInt8(ascii: "\"")) else { throw self.failure("expected a member name") }
            let name = try self.readString()
            if members.count < 16 {
                if members.contains(where: { $0.name.hasSameBytes(as: name) }) { throw .duplicateMember(name) }
            } else {
                if seen.isEmpty { seen = Set(members.map { Array($0.name.utf8) }) }
                guard seen.insert(Array(name.utf8)).inserted else { throw .duplicateMember(name) }
            }
            self.skipWhitespace()
            guard self.peek(UInt8(ascii: ":")) else { throw self.failure("expected ':'") }
            self.index += 1
            self.skipWhitespace()
            let value = try self.readValue(depth: depth)
            members.append((name, value))
            self.skipWhitespace()
            if self.peek(UInt8(ascii: ",")) {
                self.index += 1
                continue
            }
            guard self.peek(UInt8(ascii: "}")) else { throw self.failure("expected ',' or '}'") }
            self.index += 1
            return .object(members)
        }
    }

    mutating func readArray(depth: Int) throws(JSONParser.Failure) -> JSONValue {
        guard depth <= self.maximumDepth else { throw .tooDeep }
        self.index += 1
        var elements: [JSONValue] = []
        self.skipWhitespace()
        if self.peek(UInt8(ascii: "]")) {
            self.index += 1
            return .array(elements)
        }
        while true {
            self.skipWhitespace()
            elements.append(try self.readValue(depth: depth))
            self.skipWhitespace()
            if self.peek(UInt8(ascii: ",")) {
                self.index += 1
                continue
            }
            guard self.peek(UInt8(ascii: "]")) else { throw self.failure("expected ',' or ']'") }
            self.index += 1
            return .array(elements)
        }
    }

    func peek(_ byte: UInt8) -> Bool {
        self.index < self.bytes.count && self.bytes[self.index] == byte
    }

    mutating func readNumber() throws(JSONParser.Failure) -> String {
        let start = self.index
        if self.peek(UInt8(ascii: "-")) { self.index += 1 }
        if self.peek(UInt8(ascii: "0")) {
            self.index += 1
        } else {
            guard self.readDigits() > 0 else { throw self.failure("invalid number") }
        }
        if self.peek(UInt8(ascii: ".")) {
            self.index += 1
            guard self.readDigits() > 0 else { throw self.failure("invalid number fraction") }
        }
        if self.peek(UInt8(ascii: "e")) || self.peek(UInt8(ascii: "E")) {
            self.index += 1
            if self.peek(UInt8(ascii: "+")) || self.peek(UInt8(ascii: "-")) { self.index += 1 }
            guard self.readDigits() > 0 else { throw self.failure("invalid number exponent") }
        }
        let text = String(decoding: self.bytes[start..<self.index], as: UTF8.self)
        guard CanonicalNumber(validatedJSONNumber: text) != nil else {
            throw .malformed(offset: start, reason: "number out of range")
        }
        return text
    }

    mutating func readDigits() -> Int {
        let start = self.index
        while self.index < self.bytes.count, (0x30...0x39).contains(self.bytes[self.index]) {
            self.index += 1
        }
        return self.index - start
    }

    mutating func readString() throws(JSONParser.Failure) -> String {
        self.index += 1
        // Fast path: a run of printable ASCII up to the closing quote becomes the string at once.
        var end = self.index
        while end < self.bytes.count {
            let byte = self.bytes[end]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: self.bytes[self.index..<end], as: UTF8.self)
                self.index = end + 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            end += 1
        }
        var scalars = String.UnicodeScalarView()
        while true {
            guard self.index < self.bytes.count else { throw self.failure("unterminated string") }
            let byte = self.bytes[self.index]
            switch byte {
            case UInt8(ascii: "\""):
                self.index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                scalars.append(try self.readEscape())
            case 0x00..<0x20:
                throw self.failure("control character in string")
            case 0x00..<0x80:
                scalars.append(Unicode.Scalar(byte))
                self.index += 1
            default:
                scalars.append(try self.readUTF8Scalar())
            }
        }
    }

    mutating func readEscape() throws(JSONParser.Failure) -> Unicode.Scalar {
        self.index += 1
        guard self.index < self.bytes.count else { throw self.failure("unterminated escape") }
        let byte = self.bytes[self.index]
        self.index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try self.readHex4()
            if (0xD800...0xDBFF).contains(first) {
                guard self.peek(UInt8(ascii: "\\")), self.index + 1 < self.bytes.count,
                    self.bytes[self.index + 1] == UInt8(ascii: "u")
                else { throw self.failure("unpaired surrogate") }
                self.index += 2
                let second = try self.readHex4()
                guard (0xDC00...0xDFFF).contains(second) else { throw self.failure("unpaired surrogate") }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw self.failure("invalid escape") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw self.failure("unpaired surrogate") }
            return scalar
        default:
            throw self.failure("invalid escape")
        }
    }

    mutating func readHex4() throws(JSONParser.Failure) -> UInt32 {
        guard self.index + 4 <= self.bytes.count else { throw self.failure("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = self.bytes[self.index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw self.failure("invalid \\u escape")
            }
            value = value << 4 | digit
            self.index += 1
        }
        return value
    }

    mutating func readUTF8Scalar() throws(JSONParser.Failure) -> Unicode.Scalar {
        let lead = self.bytes[self.index]
        let length: Int
        var value: UInt32
        switch lead {
        case 0xC2...0xDF:
            length = 2
            value = UInt32(lead & 0x1F)
        case 0xE0...0xEF:
            length = 3
            value = UInt32(lead & 0x0F)
        case 0xF0...0xF4:
            length = 4
            value = UInt32(lead & 0x07)
        default: throw self.failure("invalid UTF-8")
        }
        guard self.index + length <= self.bytes.count else { throw self.failure("truncated UTF-8") }
        for offset in 1..<length {
            let continuation = self.bytes[self.index + offset]
            guard continuation & 0xC0 == 0x80 else { throw self.failure("invalid UTF-8") }
            value = value << 6 | UInt32(continuation & 0x3F)
        }
        let minimum: UInt32 = length == 2 ? 0x80 : (length == 3 ? 0x800 : 0x10000)
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { throw self.failure("invalid UTF-8") }
        self.index += length
        return scalar
    }
}
