extension JSONValue {
    /// The canonical spelling: no white space, object members sorted by the UTF-8 bytes of their names,
    /// numbers normalised exactly (see ``CanonicalNumber``), strings escaping only `"`, `\` and control
    /// characters. Two documents with equal canonical text are the same value to PostgreSQL's `jsonb`.
    public var canonicalText: String {
        String(decoding: self.canonicalBytes, as: UTF8.self)
    }

    /// ``canonicalText`` as UTF-8 bytes.
    public var canonicalBytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(128)
        self.writeCanonical(into: &output)
        return output
    }

    /// Whether any string in the document (member names included) contains U+0000, which `jsonb` cannot store.
    public var containsNUL: Bool {
        switch self {
        case .null, .bool, .number: return false
        case .string(let text): return text.utf8.contains(0)
        case .array(let elements): return elements.contains { $0.containsNUL }
        case .object(let members): return members.contains { $0.name.utf8.contains(0) || $0.value.containsNUL }
        }
    }

    private func writeCanonical(into output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let text):
            output.append(contentsOf: (CanonicalNumber(validatedJSONNumber: text)?.text ?? text).utf8)
        case .string(let text): Self.writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                element.writeCanonical(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            let sorted = members.map { (Array($0.name.utf8), $0.name, $0.value) }
                .sorted { $0.0.lexicographicallyPrecedes($1.0) }
            for (offset, member) in sorted.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(member.1, into: &output)
                output.append(UInt8(ascii: ":"))
                member.2.writeCanonical(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                output.append(contentsOf: Array("\\u00".utf8))
                output.append(Self.hexDigits[Int(byte >> 4)])
                output.append(Self.hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
