/// A proleptic Gregorian calendar date, converted to and from days since 1970-01-01 with
/// Howard Hinnant's exact `days_from_civil` algorithms.
struct CivilDate: CustomStringConvertible {
    let year: Int64
    let month: Int64
    let day: Int64

    init?(year: Int64, month: Int64, day: Int64) {
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    init(daysSinceEpoch: Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        self.day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        self.month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        self.year = yearOfEra + era * 400 + (self.month <= 2 ? 1 : 0)
    }

    var daysSinceEpoch: Int64 {
        let shiftedYear = self.month <= 2 ? self.year - 1 : self.year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (self.month > 2 ? self.month - 3 : self.month + 9) + 2) / 5 + self.day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    var description: String {
        Timestamp.pad(self.year, 4) + "-" + Timestamp.pad(self.month, 2) + "-" + Timestamp.pad(self.day, 2)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
