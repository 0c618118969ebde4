/// A gzip encoder for the fake server's `Content-Encoding: gzip` answers (Foundation has none on Linux): one
/// deflate block with the fixed Huffman codes (RFC 1951 §3.2.6), each byte a literal except that a run of one
/// byte is sent as matches of 258 at distance 1, so that a long run compresses about 160 to 1 (a "gzip bomb").
enum TestGzip {
    /// `bytes` as a gzip member (RFC 1952).
    static func compress(_ bytes: [UInt8]) -> [UInt8] {
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman codes
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            bits.literal(Int(byte))
            var run = 0
            while index + 1 + run < bytes.count, bytes[index + 1 + run] == byte { run += 1 }
            index += 1
            while run >= 258 {
                bits.huffman(0xC5, length: 8)  // symbol 285: length 258, no extra bits
                bits.huffman(0, length: 5)  // distance code 0: distance 1
                run -= 258
                index += 258
            }
        }
        bits.huffman(0, length: 7)  // symbol 256: end of block
        let header: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]
        return header + bits.bytes + Self.littleEndian(Self.crc32(bytes))
            + Self.littleEndian(UInt32(truncatingIfNeeded: bytes.count))
    }

    /// The CRC-32 of `bytes` (the gzip trailer's).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = Self.crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }

    /// The CRC of each byte value, for ``crc32(_:)``.
    private static let crcTable: [UInt32] = (0..<256).map { value in
        var crc = UInt32(value)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// Deflate's bit order: values from their least significant bit, Huffman codes from their most significant.
    private struct BitWriter {
        var bytes: [UInt8] = []
        private var used = 8

        mutating func write(_ value: UInt32, count: Int) {
            for bit in 0..<count { self.append((value >> bit) & 1) }
        }

        mutating func huffman(_ code: UInt32, length: Int) {
            for bit in (0..<length).reversed() { self.append((code >> bit) & 1) }
        }

        /// The fixed code of the literal `value` (0…255).
        mutating func literal(_ value: Int) {
            if value < 144 {
                self.huffman(UInt32(0x30 + value), length: 8)
            } else {
                self.huffman(UInt32(0x190 + value - 144), length: 9)
            }
        }

        private mutating func append(_ bit: UInt32) {
            if self.used == 8 {
                self.bytes.append(0)
                self.used = 0
            }
            self.bytes[self.bytes.count - 1] |= UInt8(bit) << self.used
            self.used += 1
        }
    }
}
