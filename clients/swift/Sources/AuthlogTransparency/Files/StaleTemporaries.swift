import Foundation

/// The temporary files a crash left beside ``DurableFile``'s targets (`.<name>.<UUID>`), removed once per
/// process and target: the first replace of a path lists its directory and removes that path's leftovers
/// untouched for longer than an age; later replaces of the same path list nothing.
final class StaleTemporaries: @unchecked Sendable {
    // @unchecked Sendable: `swept` is read and written only while `lock` is held.
    /// The one record of the process.
    static let shared = StaleTemporaries()

    private let lock = NSLock()
    private var swept: Set<String> = []

    /// Removes the leftover temporary files of `path` older than `age` seconds, unless this process did already.
    func removeOnce(beside path: String, olderThan age: TimeInterval) {
        self.lock.lock()
        let first = self.swept.insert(path).inserted
        self.lock.unlock()
        if first { Self.remove(beside: path, olderThan: age) }
    }

    /// Removes the regular files `.<name of path>.<UUID>` beside `path` last modified more than `age` seconds ago.
    /// Nothing else is touched, and a file that cannot be read or removed is left as it is.
    static func remove(beside path: String, olderThan age: TimeInterval) {
        let directory = DurableFile.directory(of: path)
        let prefix = ".\((path as NSString).lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        let cutoff = Date(timeIntervalSinceNow: -age)
        for name in names where name.hasPrefix(prefix) && UUID(uuidString: String(name.dropFirst(prefix.count))) != nil
        {
            let candidate = "\(directory)/\(name)"
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: candidate),
                attributes[.type] as? FileAttributeType == .typeRegular,
                let modified = attributes[.modificationDate] as? Date, modified < cutoff
            else { continue }
            try? FileManager.default.removeItem(atPath: candidate)
        }
    }
}
