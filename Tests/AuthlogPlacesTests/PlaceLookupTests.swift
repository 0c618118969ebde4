import AuthlogCore
import AuthlogPlaces
import AuthlogTesting
import Foundation
import Testing

/// The operator's MaxMind DB files read with libmaxminddb: places and networks of IPv4 and IPv6 addresses,
/// the errors at start, and files replaced while in use.
struct PlaceLookupTests {
    private static func address(_ text: String) throws -> IPAddress { try #require(IPAddress(text)) }

    @Test func placesAndNetworksOfIPv4AndIPv6Addresses() throws {
        guard let files = try PlaceFilesFixture.make() else { return }
        defer { files.remove() }
        let lookup = try PlaceLookup(files: PlaceFiles(city: files.city, asn: files.asn))
        let seoul = Place(
            country: "KR",
            region: "11",
            city: "Seoul",
            location: .init(latitude: 37.5665, longitude: 126.9780, accuracyKilometres: 20)
        )
        #expect(lookup.facts(about: try Self.address("175.223.10.9")).place == seoul)
        #expect(lookup.facts(about: try Self.address("2001:db8:10::7")).place == seoul)
        #expect(lookup.facts(about: try Self.address("2001:db8:20:1::1")).place?.city == "Tokyo")
        let unnamed = lookup.facts(about: try Self.address("198.51.100.7"))
        #expect(unnamed.place?.country == "US" && unnamed.place?.city == nil && unnamed.place?.region == nil)
        #expect(unnamed.place?.location?.accuracyKilometres == 1000, "a country's centre, 1,000 km either way")
        #expect(unnamed.network == AutonomousSystem(number: 64500, organization: "Example Hosting"))
        #expect(lookup.facts(about: try Self.address("175.223.10.9")).network?.number == 64501)
        #expect(lookup.facts(about: try Self.address("126.0.3.4")).network == nil, "no ASN record")
        #expect(lookup.facts(about: try Self.address("192.0.2.1")) == AddressFacts(), "no record at all")
        #expect(lookup.facts(about: try Self.address("2001:db8:99::1")) == AddressFacts())
        #expect(lookup.buildEpochs.city > 0 && lookup.buildEpochs.asn != nil)
    }

    @Test func aMissingCorruptOrWrongKindOfFileIsAnErrorNamingTheSettingAndThePath() throws {
        guard let files = try PlaceFilesFixture.make() else { return }
        defer { files.remove() }
        let missing = files.directory.appendingPathComponent("GeoLite2-City.mmdb").path
        #expect(
            throws: PlaceDatabaseError(
                setting: "places.city_database",
                path: missing,
                problem: "cannot be read (No such file or directory)"
            )
        ) {
            try PlaceLookup(files: PlaceFiles(city: missing))
        }
        let corrupt = files.directory.appendingPathComponent("corrupt.mmdb").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: files.city))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: corrupt))
        do {
            _ = try PlaceLookup(files: PlaceFiles(city: corrupt))
            Issue.record("half a file opened")
        } catch {
            #expect(error.path == corrupt && error.setting == "places.city_database")
            #expect(error.problem.hasPrefix("not a MaxMind DB file"), "\(error)")
        }
        #expect(
            throws: PlaceDatabaseError(
                setting: "places.city_database",
                path: files.asn,
                problem: "is a GeoLite2-ASN file, not a city or country file"
            )
        ) {
            try PlaceLookup(files: PlaceFiles(city: files.asn))
        }
        #expect(
            throws: PlaceDatabaseError(
                setting: "places.asn_database",
                path: files.city,
                problem: "is a GeoLite2-City file, not an ASN file"
            )
        ) {
            try PlaceLookup(files: PlaceFiles(city: files.city, asn: files.city))
        }
        #expect(
            throws: PlaceDatabaseError(
                setting: "places.city_database",
                path: files.directory.path,
                problem: "is not a regular file"
            )
        ) {
            try PlaceLookup(files: PlaceFiles(city: files.directory.path))
        }
    }

    /// An update written over the file in place (`cp`, which truncates it first) cannot fault the lookups that
    /// read the old one; the next check opens it; one moved into place is opened too; a broken replacement is
    /// reported once and the file in use stays.
    @Test func aFileReplacedWhileInUseIsOpenedAtTheNextCheck() throws {
        guard let files = try PlaceFilesFixture.make() else { return }
        defer { files.remove() }
        let lookup = try PlaceLookup(files: PlaceFiles(city: files.city, asn: files.asn))
        let seoul = try Self.address("175.223.10.9")
        #expect(lookup.reload().isEmpty, "nothing changed")

        try Data("not yet".utf8).write(to: URL(fileURLWithPath: files.city))  // truncated in place, mid-copy
        #expect(lookup.facts(about: seoul).place?.city == "Seoul", "the private copy is untouched")
        let broken = lookup.reload()
        guard case .failed(let error)? = broken.first, broken.count == 1 else {
            Issue.record("a broken replacement: \(broken)")
            return
        }
        #expect(error.path == files.city && error.problem.hasPrefix("not a MaxMind DB file"))
        #expect(lookup.reload().isEmpty, "reported once per change")
        #expect(lookup.facts(about: seoul).place?.city == "Seoul", "the file in use stays")

        try files.write(city: files.city, asn: files.asn, moved: true)  // written over in place
        let moved = lookup.reload()
        #expect(moved.count == 2, "both files were written again: \(moved)")
        #expect(lookup.facts(about: seoul).place?.city == "Busan")

        let staged = files.directory.appendingPathComponent("staged.mmdb").path
        try files.write(city: staged, asn: files.directory.appendingPathComponent("staged-asn.mmdb").path)
        #expect(rename(staged, files.city) == 0)
        #expect(lookup.reload().count == 1, "moved into place: another inode")
        #expect(lookup.facts(about: seoul).place?.city == "Seoul")
        #expect(lookup.reload(force: true).count == 2, "SIGHUP opens every file again")
    }
}
