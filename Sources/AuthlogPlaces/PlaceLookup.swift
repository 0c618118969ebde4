public import AuthlogCore
import Synchronization

/// The operator's MaxMind DB files: a city (or country) file, and optionally an ASN file.
public struct PlaceFiles: Sendable, Equatable {
    /// The path of the city file (GeoLite2-City, GeoIP2-City, DB-IP City Lite; a country file gives countries).
    public var city: String
    /// The path of the ASN file (GeoLite2-ASN, DB-IP ASN Lite), if any.
    public var asn: String?

    /// Creates the settings.
    public init(city: String, asn: String? = nil) {
        self.city = city
        self.asn = asn
    }
}

/// What the operator's files say of one address.
public struct AddressFacts: Sendable, Equatable {
    /// Where the city file places it.
    public var place: Place?
    /// The network the ASN file names for it.
    public var network: AutonomousSystem?

    /// Creates the facts.
    public init(place: Place? = nil, network: AutonomousSystem? = nil) {
        self.place = place
        self.network = network
    }
}

/// The operator's MaxMind DB files, open, and opened again when they change (``reload(force:)``: on a timer
/// and on SIGHUP, since operators update the files monthly). Nothing is fetched: the files are the operator's.
/// A lookup takes the files in use at that moment; a reload swaps them under a lock, and the old ones close
/// when the last lookup that holds them ends.
public final class PlaceLookup: Sendable {
    /// The settings' names, for errors and logs.
    public static let citySetting = "places.city_database"
    /// The ASN file's setting.
    public static let asnSetting = "places.asn_database"

    /// The configured paths.
    public let files: PlaceFiles
    private let state: Mutex<State>
    /// Held through a whole reload, so that a timer's and a SIGHUP's never interleave (the slower one would put
    /// back the older file).
    private let reloading = Mutex(())

    private struct State: Sendable {
        var city: Opened
        var asn: Opened?
    }

    /// One open file and the stamp of the file it was read from; `lastTried` is the stamp last opened or tried,
    /// so a bad replacement is reported once, not at every check.
    private struct Opened: Sendable {
        var database: MaxMindDatabase
        var lastTried: FileStamp?
    }

    /// What a reload did with one file.
    public enum ReloadOutcome: Sendable, Equatable {
        /// The file changed and was opened: the setting, the path and the new file's build time.
        case reloaded(setting: String, path: String, buildEpoch: UInt64)
        /// The file changed but could not be used; the one opened before stays in use.
        case failed(PlaceDatabaseError)
    }

    /// Opens both files.
    /// - Throws: ``PlaceDatabaseError`` naming the setting and the path: missing, unreadable, not a MaxMind DB
    ///   file, or of the wrong kind (an ASN file given as the city file, say).
    public init(files: PlaceFiles) throws(PlaceDatabaseError) {
        self.files = files
        let cityStamp = FileStamp(of: files.city)
        let city = try Self.open(files.city, setting: Self.citySetting)
        var asn: Opened?
        if let path = files.asn {
            let stamp = FileStamp(of: path)
            asn = Opened(database: try Self.open(path, setting: Self.asnSetting), lastTried: stamp)
        }
        self.state = Mutex(State(city: Opened(database: city, lastTried: cityStamp), asn: asn))
    }

    /// What the files say of `address`.
    public func facts(about address: IPAddress) -> AddressFacts {
        let (city, asn) = self.state.withLock { ($0.city.database, $0.asn?.database) }
        return AddressFacts(place: city.place(of: address), network: asn?.autonomousSystem(of: address))
    }

    /// The build times of the files in use (seconds since 1970): the city file's, and the ASN file's.
    public var buildEpochs: (city: UInt64, asn: UInt64?) {
        self.state.withLock { ($0.city.database.buildEpoch, $0.asn?.database.buildEpoch) }
    }

    /// Opens again each file whose path now names another file or changed contents (device, inode, size or
    /// modification time), or every file with `force`. A file that cannot be used keeps the one in use and is
    /// reported once per change.
    @discardableResult
    public func reload(force: Bool = false) -> [ReloadOutcome] {
        self.reloading.withLock { _ in self.reloadFiles(force: force) }
    }

    private func reloadFiles(force: Bool) -> [ReloadOutcome] {
        var outcomes: [ReloadOutcome] = []
        let (city, asn) = self.state.withLock { ($0.city, $0.asn) }
        if let opened = Self.reopened(city, path: self.files.city, setting: Self.citySetting, force: force, &outcomes) {
            self.state.withLock { $0.city = opened }
        }
        if let asn, let path = self.files.asn,
            let opened = Self.reopened(asn, path: path, setting: Self.asnSetting, force: force, &outcomes)
        {
            self.state.withLock { $0.asn = opened }
        }
        return outcomes
    }

    /// The file opened again when it changed (or with `force`); the same database with the stamp tried when
    /// the new file failed; nil when nothing changed.
    private static func reopened(
        _ opened: Opened,
        path: String,
        setting: String,
        force: Bool,
        _ outcomes: inout [ReloadOutcome]
    ) -> Opened? {
        let stamp = FileStamp(of: path)
        guard force || stamp != opened.lastTried else { return nil }
        do {
            let database = try Self.open(path, setting: setting)
            outcomes.append(.reloaded(setting: setting, path: path, buildEpoch: database.buildEpoch))
            return Opened(database: database, lastTried: stamp)
        } catch {
            outcomes.append(.failed(error))
            return Opened(database: opened.database, lastTried: stamp)
        }
    }

    /// Opens a file and checks it is of the kind its setting asks for.
    private static func open(_ path: String, setting: String) throws(PlaceDatabaseError) -> MaxMindDatabase {
        let database = try MaxMindDatabase(path: path, setting: setting)
        let type = database.databaseType
        let fits =
            setting == Self.asnSetting ? type.contains("ASN") : (type.contains("City") || type.contains("Country"))
        guard fits else {
            let wanted = setting == Self.asnSetting ? "an ASN file" : "a city or country file"
            throw PlaceDatabaseError(setting: setting, path: path, problem: "is a \(type) file, not \(wanted)")
        }
        return database
    }
}

extension PlaceLookup: AddressPlaces {
    /// The place and the network of `address`, for sign-in alerts.
    public func place(of address: IPAddress) -> (place: Place?, network: AutonomousSystem?) {
        let facts = self.facts(about: address)
        return (facts.place, facts.network)
    }
}
