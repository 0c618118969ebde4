/// The text encoding the sign-in helpers need beside hex (the verification core's `Hex`): unpadded base64url
/// (RFC 4648 §5).
enum ClientEncoding {
    private static let base64URLAlphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8
    )

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
