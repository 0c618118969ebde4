import Foundation

/// The text and number helpers the evidence page and its charts share: escaping, count formatting, axis ticks
/// and colors.
enum SVGMarkup {
    /// Colors that stay apart on screen, on paper and for color-blind readers (the Okabe–Ito set, darkened
    /// where it prints too light), in the order series get them.
    static let palette = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#6A3D9A"]

    /// The color of the series that gathers everything beyond ``palette``.
    static let otherColor = "#8C8C8C"

    /// The text drawn where a chart has nothing to draw.
    static let noData = "no data in this period"

    /// `text` safe inside HTML or SVG text and inside quoted attributes: `&`, `<`, `>`, `"` and `'` become
    /// character references, so no data can open a tag or leave an attribute.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` cut to at most `limit` characters, an ellipsis marking the cut (not escaped).
    static func truncated(_ text: String, to limit: Int) -> String {
        guard text.count > limit, limit > 1 else { return text }
        return String(text.prefix(limit - 1)) + "\u{2026}"
    }

    /// A count with thousands separators, such as `1,234,567`; exact for every Int64.
    static func count(_ value: Int64) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        return value < 0 ? "-" + grouped : grouped
    }

    /// An axis value in few characters: `950`, `1,500`, `25k`, `1.5M`, `3B`, `2T`, or `1.2e18` beyond.
    static func compact(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        let magnitude = abs(value)
        if magnitude < 10_000 { return self.count(Int64(value.rounded())) }
        for (scale, suffix) in [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")] where magnitude >= scale {
            guard magnitude < scale * 1_000 else { break }
            return self.trimmed(String(format: "%.1f", value / scale)) + suffix
        }
        let exponent = floor(log10(magnitude))
        return self.trimmed(String(format: "%.1f", value / pow(10, exponent))) + "e" + String(Int(exponent))
    }

    /// A coordinate for an SVG attribute, with at most two decimals.
    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        return self.trimmed(String(format: "%.2f", value))
    }

    /// Round axis ticks from 0 through at least `maximum`: the smallest step of 1, 2, 2.5 or 5 times a power of
    /// ten that needs at most `intervals` intervals, never below 1 (counts are whole).
    static func ticks(upTo maximum: Double, intervals: Int = 6) -> [Double] {
        guard maximum.isFinite, maximum > 0 else { return [0, 1] }
        let limit = Double(max(intervals, 1))
        let power = pow(10, floor(log10(maximum / limit)))
        let factors: [Double] = power >= 10 ? [1, 2, 2.5, 5, 10] : [1, 2, 5, 10]
        let step = factors.map { max($0 * power, 1) }.first { (maximum / $0).rounded(.up) <= limit } ?? 10 * power
        let count = Int((maximum / step).rounded(.up))
        return (0...max(count, 1)).map { Double($0) * step }
    }

    /// The sum of `values`, held at Int64's ends instead of overflowing.
    static func saturatingSum(_ values: [Int64]) -> Int64 {
        var total: Int64 = 0
        for value in values {
            let (sum, overflowed) = total.addingReportingOverflow(value)
            total = overflowed ? (value > 0 ? .max : .min) : sum
        }
        return total
    }

    /// `text` without a trailing `.0` or `.00`.
    private static func trimmed(_ text: String) -> String {
        var result = text
        if result.contains(".") {
            while result.hasSuffix("0") { result.removeLast() }
            if result.hasSuffix(".") { result.removeLast() }
        }
        return result == "-0" ? "0" : result
    }
}
