/// The text encodings the sign-in helpers need: lowercase hex and unpadded base64url (RFC 4648 §5).
enum ClientEncoding {
    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let base64URLAlphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8
    )

    /// Lowercase hex of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            output.append(Self.hexDigits[Int(byte >> 4)])
            output.append(Self.hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Unpadded base64url of `bytes`.
    static func base64URL(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var value: UInt32 = 0
            for offset in 0..<3 {
                value <<= 8
                if offset < count { value |= UInt32(bytes[index + offset]) }
            }
            for position in 0...count {
                output.append(Self.base64URLAlphabet[Int(value >> UInt32(18 - 6 * position) & 0x3F)])
            }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
