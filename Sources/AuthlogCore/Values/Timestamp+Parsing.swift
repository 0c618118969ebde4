extension Timestamp {
    /// 0001-01-01T00:00:00Z, the earliest instant a parsed timestamp may name.
    static let earliestMicroseconds: Int64 = -62_135_596_800_000_000

    /// Parses ISO 8601 / RFC 3339: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.fraction]]` with `Z`, `±HH:MM`,
    /// `±HHMM` or `±HH` (a time without an offset is taken as UTC). A space may stand for `T`.
    /// Fractions beyond microseconds are truncated. Years run from 0001 to 9999 (year 0000, which
    /// PostgreSQL cannot store, is refused). Returns `nil` for anything else.
    public init?(iso8601 text: String) {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), year >= 1, scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2),
            let civil = CivilDate(year: year, month: month, day: day)
        else { return nil }
        var micros = civil.daysSinceEpoch * 86_400_000_000
        if scanner.isAtEnd {
            self.init(microsecondsSinceEpoch: micros)
            return
        }
        guard scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
            let hour = scanner.number(digits: 2), hour < 24, scanner.skip(":"),
            let minute = scanner.number(digits: 2), minute < 60
        else { return nil }
        var second: Int64 = 0
        var fraction: Int64 = 0
        if scanner.skip(":") {
            guard let parsed = scanner.number(digits: 2), parsed < 61 else { return nil }
            second = min(parsed, 59)
            if scanner.skip(".") || scanner.skip(",") {
                guard let value = scanner.fractionMicroseconds() else { return nil }
                fraction = value
            }
        }
        micros += ((hour * 60 + minute) * 60 + second) * 1_000_000 + fraction
        if !scanner.isAtEnd {
            guard let offset = scanner.offsetSeconds() else { return nil }
            micros -= offset * 1_000_000
        }
        guard scanner.isAtEnd else { return nil }
        // An offset can carry 0001-01-01 into year 0, which PostgreSQL refuses: the earliest instant is
        // 0001-01-01T00:00:00Z.
        guard micros >= Self.earliestMicroseconds else { return nil }
        self.init(microsecondsSinceEpoch: micros)
    }
}

private struct DigitScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { self.index == self.bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: character) else { return false }
        self.index += 1
        return true
    }

    mutating func number(digits: Int) -> Int64? {
        guard self.index + digits <= self.bytes.count else { return nil }
        var value: Int64 = 0
        for byte in self.bytes[self.index..<self.index + digits] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        self.index += digits
        return value
    }

    mutating func fractionMicroseconds() -> Int64? {
        var value: Int64 = 0
        var count = 0
        while self.index < self.bytes.count, (0x30...0x39).contains(self.bytes[self.index]) {
            if count < 6 { value = value * 10 + Int64(self.bytes[self.index] - 0x30) }
            count += 1
            self.index += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 6) { value *= 10 }
        return value
    }

    mutating func offsetSeconds() -> Int64? {
        if self.skip("Z") || self.skip("z") { return 0 }
        let sign: Int64
        if self.skip("+") {
            sign = 1
        } else if self.skip("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hours = self.number(digits: 2), hours < 24 else { return nil }
        var minutes: Int64 = 0
        if self.skip(":") {
            guard let parsed = self.number(digits: 2) else { return nil }
            minutes = parsed
        } else if let parsed = self.number(digits: 2) {
            minutes = parsed
        }
        guard minutes < 60 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }
}
