public import AuthlogCore
import CMaxMindDB

extension MaxMindDatabase {
    /// The longest string read from a record; a longer one reads as absent (no city or organisation name
    /// comes near it).
    static let longestString = 256

    private enum Paths {
        static let country = EntryPath("country", "iso_code")
        static let regionCode = EntryPath("subdivisions", "0", "iso_code")
        static let regionName = EntryPath("subdivisions", "0", "names", "en")
        static let city = EntryPath("city", "names", "en")
        static let latitude = EntryPath("location", "latitude")
        static let longitude = EntryPath("location", "longitude")
        static let accuracy = EntryPath("location", "accuracy_radius")
        static let asNumber = EntryPath("autonomous_system_number")
        static let asOrganization = EntryPath("autonomous_system_organization")
    }

    /// Where the file places `address`; nil when it has no record for it.
    public func place(of address: IPAddress) -> Place? {
        guard let entry = self.entry(for: address) else { return nil }
        var place = Place()
        place.country = self.string(in: entry, at: Paths.country)
        place.region = self.string(in: entry, at: Paths.regionCode) ?? self.string(in: entry, at: Paths.regionName)
        place.city = self.string(in: entry, at: Paths.city)
        if let latitude = self.number(in: entry, at: Paths.latitude),
            let longitude = self.number(in: entry, at: Paths.longitude),
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        {
            place.location = Place.Location(
                latitude: latitude,
                longitude: longitude,
                accuracyKilometres: self.number(in: entry, at: Paths.accuracy)
            )
        }
        return place == Place() ? nil : place
    }

    /// The autonomous system the file names for `address`; nil when it has none.
    public func autonomousSystem(of address: IPAddress) -> AutonomousSystem? {
        guard let entry = self.entry(for: address),
            let number = self.number(in: entry, at: Paths.asNumber), number >= 0, number <= Double(UInt32.max)
        else { return nil }
        return AutonomousSystem(number: UInt32(number), organization: self.string(in: entry, at: Paths.asOrganization))
    }

    /// A UTF-8 string value, at most ``longestString`` bytes.
    private func string(in entry: MMDB_entry_s, at path: EntryPath) -> String? {
        guard let data = self.value(in: entry, at: path), data.type == UInt32(MMDB_DATA_TYPE_UTF8_STRING),
            data.data_size > 0, data.data_size <= Self.longestString, let text = data.utf8_string
        else { return nil }
        let count = Int(data.data_size)
        return text.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    /// A numeric value of any of the format's number types, as a double.
    private func number(in entry: MMDB_entry_s, at path: EntryPath) -> Double? {
        guard let data = self.value(in: entry, at: path) else { return nil }
        let value: Double
        switch Int32(data.type) {
        case MMDB_DATA_TYPE_DOUBLE: value = data.double_value
        case MMDB_DATA_TYPE_FLOAT: value = Double(data.float_value)
        case MMDB_DATA_TYPE_UINT16: value = Double(data.uint16)
        case MMDB_DATA_TYPE_UINT32: value = Double(data.uint32)
        case MMDB_DATA_TYPE_INT32: value = Double(data.int32)
        case MMDB_DATA_TYPE_UINT64: value = Double(data.uint64)
        default: return nil
        }
        return value.isFinite ? value : nil
    }
}
