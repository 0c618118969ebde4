/// The coding key of an array element, for coding paths in errors.
struct JSONIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { self.intValue.map(String.init) ?? "" }
    init(_ index: Int) { self.intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}
