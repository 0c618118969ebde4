/// `application/x-www-form-urlencoded` bodies and URL query components.
public enum FormEncoding {
    /// Encodes `fields` as `name=value&…`, percent-encoding everything but unreserved characters.
    public static func encode(_ fields: [(name: String, value: String)]) -> String {
        fields.map { self.percentEncode($0.name) + "=" + self.percentEncode($0.value) }.joined(separator: "&")
    }

    /// Percent-encodes every byte outside RFC 3986's unreserved set.
    public static func percentEncode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                output.unicodeScalars.append("%")
                output.unicodeScalars.append(hex[Int(byte >> 4)])
                output.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return output
    }

    /// Decodes a form body into its fields; `nil` when an escape is malformed.
    public static func decode(_ text: String) -> [(name: String, value: String)]? {
        var fields: [(name: String, value: String)] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = self.percentDecode(parts[0]),
                let value = parts.count > 1 ? self.percentDecode(parts[1]) : ""
            else { return nil }
            fields.append((name, value))
        }
        return fields
    }

    private static func percentDecode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next(), let low = iterator.next(),
                    let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
