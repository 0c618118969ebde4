/// The exact, normalised spelling of a JSON number, so that `1.50`, `15e-1` and `1.5` hash alike.
///
/// The value is held as a sign, significant decimal digits and a power of ten, with no rounding.
/// Spelling: `0`; an integer (`-1200`) when it has at most 21 digits; a decimal fraction (`0.0015`)
/// when it needs at most six leading zeros; otherwise the digits and an exponent (`15e-30`).
struct CanonicalNumber {
    /// The normalised spelling.
    let text: String

    /// The largest decimal exponent accepted, in either direction; PostgreSQL's `numeric` holds far less
    /// than JSON allows, so larger magnitudes are refused up front.
    static let exponentLimit = 1000

    /// Normalises the text of a number that already matched the JSON grammar; `nil` if it is out of range.
    init?(validatedJSONNumber source: String) {
        var negative = false
        var digits: [UInt8] = []
        var exponent = 0
        var bytes = Substring(source).utf8[...]
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes = bytes.dropFirst()
        }
        var fractionDigits = 0
        var inFraction = false
        while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: ".") {
                inFraction = true
                continue
            }
            digits.append(byte)
            if inFraction { fractionDigits += 1 }
        }
        if !bytes.isEmpty {
            guard let value = Self.exponent(bytes.dropFirst()) else { return nil }
            exponent = value
        }
        exponent -= fractionDigits
        let significant = digits.drop { $0 == UInt8(ascii: "0") }
        guard !significant.isEmpty else {
            self.text = "0"
            return
        }
        var trimmed = Array(significant)
        while trimmed.last == UInt8(ascii: "0") {
            trimmed.removeLast()
            exponent += 1
        }
        let adjusted = exponent + trimmed.count - 1
        guard abs(adjusted) <= Self.exponentLimit else { return nil }
        self.text = Self.spelling(negative: negative, digits: trimmed, exponent: exponent, adjusted: adjusted)
    }

    /// The value of an exponent's text after the `e` (an optional sign, then digits); `nil` when it has more
    /// than six significant digits.
    private static func exponent(_ text: Substring.UTF8View) -> Int? {
        var bytes = text
        var exponentNegative = false
        if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") {
            exponentNegative = bytes.first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        let exponentDigits = bytes.drop { $0 == UInt8(ascii: "0") }
        guard exponentDigits.count <= 6 else { return nil }
        var value = 0
        for byte in exponentDigits { value = value * 10 + Int(byte - 0x30) }
        return exponentNegative ? -value : value
    }

    /// The spelling of `digits` (no leading or trailing zeros) times ten to `exponent`, whose first digit
    /// stands at ten to `adjusted`: an integer, a decimal fraction, or the digits and an exponent.
    private static func spelling(negative: Bool, digits trimmed: [UInt8], exponent: Int, adjusted: Int) -> String {
        let sign = negative ? "-" : ""
        let digitText = String(decoding: trimmed, as: UTF8.self)
        if exponent >= 0 && trimmed.count + exponent <= 21 {
            return sign + digitText + String(repeating: "0", count: exponent)
        } else if exponent < 0 && adjusted >= -7 {
            let pointIndex = trimmed.count + exponent
            if pointIndex > 0 {
                let integerPart = digitText.prefix(pointIndex)
                let fractionPart = digitText.dropFirst(pointIndex)
                return sign + integerPart + "." + fractionPart
            } else {
                return sign + "0." + String(repeating: "0", count: -pointIndex) + digitText
            }
        } else {
            return sign + digitText + "e" + String(exponent)
        }
    }
}
