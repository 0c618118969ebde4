/// Base64url without padding (RFC 7515 §2), decoded strictly: only `A–Z a–z 0–9 - _`, no `=`, no white
/// space, no length that cannot occur, and no non-zero bits left over in the last character.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = Int8(index) }
        return table
    }()

    /// The unpadded base64url text of `bytes`.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            for shift in [18, 12, 6, 0] { output.append(Self.alphabet[Int(value >> UInt32(shift) & 0x3F)]) }
            index += 3
        }
        let remaining = input.count - index
        if remaining == 1 {
            let value = UInt32(input[index]) << 16
            output.append(Self.alphabet[Int(value >> 18 & 0x3F)])
            output.append(Self.alphabet[Int(value >> 12 & 0x3F)])
        } else if remaining == 2 {
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output.append(Self.alphabet[Int(value >> 18 & 0x3F)])
            output.append(Self.alphabet[Int(value >> 12 & 0x3F)])
            output.append(Self.alphabet[Int(value >> 6 & 0x3F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of strict unpadded base64url `text`, or `nil`.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        self.decode(bytes: Array(text.utf8))
    }

    /// The bytes of strict unpadded base64url text given as its UTF-8 bytes, or `nil`.
    public static func decode(bytes input: some Collection<UInt8>) -> [UInt8]? {
        guard input.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in input {
            let value = Self.values[Int(byte)]
            guard value >= 0 else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero: each byte string has exactly one encoding.
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }
}
