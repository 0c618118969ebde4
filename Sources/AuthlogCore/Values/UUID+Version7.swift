public import Foundation

extension UUID {
    /// A time-ordered UUID (RFC 9562 version 7): 48 bits of Unix milliseconds, then random bits.
    ///
    /// Time-ordered ids keep the event table's unique index append-mostly, which doubles batch ingest
    /// over random version-4 ids once millions of rows are stored.
    public static func version7(at time: Timestamp = .now()) -> UUID {
        let millis = UInt64(max(0, time.microsecondsSinceEpoch / 1000))
        var random = SystemRandomNumberGenerator()
        let high = random.next() as UInt64
        let low = random.next() as UInt64
        let bytes: uuid_t = (
            UInt8(truncatingIfNeeded: millis >> 40), UInt8(truncatingIfNeeded: millis >> 32),
            UInt8(truncatingIfNeeded: millis >> 24), UInt8(truncatingIfNeeded: millis >> 16),
            UInt8(truncatingIfNeeded: millis >> 8), UInt8(truncatingIfNeeded: millis),
            0x70 | UInt8(truncatingIfNeeded: high >> 60), UInt8(truncatingIfNeeded: high >> 52),
            0x80 | UInt8(truncatingIfNeeded: high >> 46) & 0x3F, UInt8(truncatingIfNeeded: high >> 38),
            UInt8(truncatingIfNeeded: low >> 56), UInt8(truncatingIfNeeded: low >> 48),
            UInt8(truncatingIfNeeded: low >> 40), UInt8(truncatingIfNeeded: low >> 32),
            UInt8(truncatingIfNeeded: low >> 24), UInt8(truncatingIfNeeded: low >> 16)
        )
        return UUID(uuid: bytes)
    }

    /// A UUID of `version` from the first 16 of `bytes` (random or hashed), with the version and the
    /// RFC 9562 variant bits set.
    public init(version: UInt8, bytes source: some Sequence<UInt8>) {
        var bytes = Array(source.prefix(16))
        bytes += Array(repeating: 0, count: 16 - bytes.count)
        bytes[6] = (bytes[6] & 0x0F) | (version << 4)
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        self.init(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
    }

    /// Parses the canonical text form only (`8-4-4-4-12` hex digits, either case), as PostgreSQL prints a `uuid`,
    /// a few times faster than `UUID(uuidString:)` (on every row a read decodes), and stricter: on Linux that
    /// one's `sscanf` also takes a space, a sign or `0x` before a pair of digits.
    public init?(canonical text: String) {
        var text = text
        let parsed: uuid_t? = text.withUTF8 { characters in
            guard characters.count == 36 else { return nil }
            var bytes = [UInt8](repeating: 0, count: 16)
            var index = 0
            for offset in 0..<16 {
                if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                    guard characters[index] == UInt8(ascii: "-") else { return nil }
                    index += 1
                }
                guard let high = Self.hexValue(characters[index]), let low = Self.hexValue(characters[index + 1])
                else { return nil }
                bytes[offset] = high << 4 | low
                index += 2
            }
            return (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        }
        guard let parsed else { return nil }
        self.init(uuid: parsed)
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The lowercase canonical text form, as PostgreSQL prints a `uuid`.
    public var lowercased: String {
        let hex = Array("0123456789abcdef".utf8)
        return withUnsafeBytes(of: self.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { output in
                var index = 0
                for (offset, byte) in bytes.enumerated() {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        output[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    output[index] = hex[Int(byte >> 4)]
                    output[index + 1] = hex[Int(byte & 0x0F)]
                    index += 2
                }
                return index
            }
        }
    }
}
