import AuthlogTesting
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A size-limited tmpfs mounted for one test, which the test fills to the last page and empties again: a real
/// full disk under a PostgreSQL tablespace. Mounting needs root (CI runs as root); as an ordinary user the
/// suites that need it are skipped, or fail under `CI=true`.
struct SmallFilesystem {
    /// Where it is mounted.
    let path: String

    /// The file that fills it.
    var filler: String { self.path + "/filler" }

    /// Whether this process may mount one: it runs as root and `mount` exists.
    static var isPossible: Bool { geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/mount") }

    /// Mounts a tmpfs of `megabytes` at a new folder under /tmp, owned by `owner` (the database server's user).
    /// - Throws: when the folder cannot be made or `mount` fails.
    static func mount(megabytes: Int, owner: String) async throws -> SmallFilesystem {
        let path = "/tmp/authlog-full-" + UUID().uuidString.lowercased().prefix(8)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mounted = try await ChildProcess.run(
            "/usr/bin/mount",
            ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", path],
            mergingErrors: true
        )
        guard mounted.status == 0 else { throw Failure(description: "mount: \(mounted.stdout)") }
        try FileManager.default.setAttributes([.ownerAccountName: owner], ofItemAtPath: path)
        return SmallFilesystem(path: path)
    }

    /// Writes zeros into ``filler`` until the filesystem refuses another byte; returns the bytes written.
    /// - Throws: when the file cannot be opened.
    func fill() throws -> Int {
        let descriptor = open(self.filler, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard descriptor >= 0 else { throw Failure(description: "open \(self.filler): errno \(errno)") }
        defer { close(descriptor) }
        var written = 0
        for size in [1 << 20, 4096, 512, 1] {
            let zeros = [UInt8](repeating: 0, count: size)
            while true {
                let result = zeros.withUnsafeBytes { write(descriptor, $0.baseAddress, size) }
                guard result > 0 else { break }
                written += result
            }
        }
        return written
    }

    /// The free bytes left on it.
    var freeBytes: Int {
        var stats = statvfs()
        guard statvfs(self.path, &stats) == 0 else { return -1 }
        return Int(stats.f_bavail) * Int(stats.f_frsize)
    }

    /// Deletes ``filler``: the space is free again.
    func empty() throws {
        try FileManager.default.removeItem(atPath: self.filler)
    }

    /// Unmounts it and removes the folder (after the database server using it has stopped).
    func remove() async {
        _ = try? await ChildProcess.run("/usr/bin/umount", ["-l", self.path], mergingErrors: true)
        try? FileManager.default.removeItem(atPath: self.path)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
