import AuthlogCore
import CMaxMindDB

#if canImport(Glibc)
import Glibc
#endif

/// One MaxMind DB file, read with libmaxminddb (the reference C reader) from a private copy in memory: the
/// operator's next `cp` over the file (which truncates it in place) can change nothing under the mapping that
/// lookups read, where reading the file itself would fault. A lookup walks at most 128 tree nodes and reads a
/// fixed handful of paths, so its cost is bounded whatever the file holds.
///
/// `@unchecked Sendable`: the `MMDB_s` is written once, by `MMDB_open` in the initializer, and only read after;
/// libmaxminddb documents lookups on one opened database from several threads as safe. It is closed in
/// `deinit`, when no lookup can hold it any more.
public final class MaxMindDatabase: @unchecked Sendable {
    /// The largest file read: 1 GiB (GeoIP2 City is about 130 MB, GeoLite2 City about 60 MB).
    public static let largestFile = 1 << 30

    /// The file's `database_type` (`GeoLite2-City`, `DBIP-City-Lite`, `GeoLite2-ASN`…).
    public let databaseType: String
    /// When the file was built (seconds since 1970), from its metadata.
    public let buildEpoch: UInt64
    private let mmdb: UnsafeMutablePointer<MMDB_s>

    /// Opens the file at `path`; `setting` names it in errors.
    /// - Throws: ``PlaceDatabaseError`` when it cannot be read, is larger than ``largestFile`` or is not a
    ///   MaxMind DB file.
    public init(path: String, setting: String) throws(PlaceDatabaseError) {
        let copy = try Self.privateCopy(of: path, setting: setting)
        defer { close(copy) }
        let mmdb = UnsafeMutablePointer<MMDB_s>.allocate(capacity: 1)
        // libmaxminddb maps the copy and closes its own descriptor; the mapping keeps the memory.
        let status = MMDB_open("/proc/self/fd/\(copy)", UInt32(MMDB_MODE_MMAP), mmdb)
        guard status == MMDB_SUCCESS else {
            mmdb.deallocate()
            throw PlaceDatabaseError(
                setting: setting,
                path: path,
                problem: "not a MaxMind DB file (\(String(cString: MMDB_strerror(status))))"
            )
        }
        self.mmdb = mmdb
        self.databaseType = mmdb.pointee.metadata.database_type.map { String(cString: $0) } ?? ""
        self.buildEpoch = mmdb.pointee.metadata.build_epoch
    }

    deinit {
        MMDB_close(self.mmdb)
        self.mmdb.deallocate()
    }

    /// The file's bytes in an anonymous file in memory; returns its descriptor.
    private static func privateCopy(of path: String, setting: String) throws(PlaceDatabaseError) -> Int32 {
        func failure(_ problem: String) -> PlaceDatabaseError {
            PlaceDatabaseError(setting: setting, path: path, problem: problem)
        }
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw failure("cannot be read (\(String(cString: strerror(errno))))") }
        defer { close(source) }
        var status = stat()
        guard fstat(source, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw failure("is not a regular file")
        }
        guard status.st_size <= Self.largestFile else { throw failure("is larger than 1 GiB") }
        let copy = authlog_private_memory_file("authlog-places")
        guard copy >= 0 else { throw failure("cannot be copied (\(String(cString: strerror(errno))))") }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count == 0 { break }
            let written = count > 0 ? buffer.withUnsafeBytes { write(copy, $0.baseAddress, count) } : -1
            total += max(count, 0)
            guard count > 0, written == count, total <= Self.largestFile else {
                close(copy)
                throw failure(total > Self.largestFile ? "is larger than 1 GiB" : "cannot be copied")
            }
        }
        return copy
    }

    /// The data record of the network holding `address`, if the file has one.
    func entry(for address: IPAddress) -> MMDB_entry_s? {
        var error: Int32 = 0
        let result: MMDB_lookup_result_s
        if address.bytes.count == 4 {
            var socket = sockaddr_in()
            socket.sin_family = sa_family_t(AF_INET)
            withUnsafeMutableBytes(of: &socket.sin_addr) { $0.copyBytes(from: address.bytes) }
            result = withUnsafePointer(to: &socket) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { MMDB_lookup_sockaddr(self.mmdb, $0, &error) }
            }
        } else {
            var socket = sockaddr_in6()
            socket.sin6_family = sa_family_t(AF_INET6)
            withUnsafeMutableBytes(of: &socket.sin6_addr) { $0.copyBytes(from: address.bytes) }
            result = withUnsafePointer(to: &socket) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { MMDB_lookup_sockaddr(self.mmdb, $0, &error) }
            }
        }
        // An IPv6 address in an IPv4-only file, or a corrupt tree, finds nothing.
        guard error == MMDB_SUCCESS, result.found_entry else { return nil }
        return result.entry
    }

    /// The value at `path` in `entry`, if it is there.
    func value(in entry: MMDB_entry_s, at path: EntryPath) -> MMDB_entry_data_s? {
        var entry = entry
        var data = MMDB_entry_data_s()
        let status = path.pointers.withUnsafeBufferPointer { MMDB_aget_value(&entry, &data, $0.baseAddress) }
        guard status == MMDB_SUCCESS, data.has_data else { return nil }
        return data
    }
}

/// A path into a record as libmaxminddb takes it: C strings ending in a null pointer. The few paths are
/// constants, made once and never freed.
///
/// `@unchecked Sendable`: the strings are written once by `strdup` and never changed or freed.
struct EntryPath: @unchecked Sendable {
    let pointers: [UnsafePointer<CChar>?]

    init(_ keys: String...) {
        self.pointers = keys.map { strdup($0).map { UnsafePointer($0) } } + [nil]
    }
}
