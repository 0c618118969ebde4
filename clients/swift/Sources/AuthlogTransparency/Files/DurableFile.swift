import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole files written durably: a reader, or the program after a crash, finds the old contents or the new ones,
/// never a mix, and once a call returns the new contents survive a power cut. The signer's state, the
/// checkpoint notes, the witness's state and the client's token file are all written through it.
///
/// Each write goes to a new temporary file beside the target (so it is on the same file system), which is
/// written whole and flushed (`fsync`, or `F_FULLFSYNC` on Apple platforms, where `fsync` leaves the data in
/// the drive's cache); then the temporary file is renamed over the target, or linked to it for
/// ``createOnce(_:with:permissions:)``, and the directory is flushed so that the new name is durable too. A
/// directory the call creates is flushed into its parent the same way.
///
/// A failed call says how far it got:
/// - ``TransparencyError/Code/fileSystem``: a step before the rename (or link) failed. The target is as it was
///   (a directory the call created may stay).
/// - ``TransparencyError/Code/notDurable``: the rename (or link) happened and only the directory's flush failed.
///   The new contents are in place and every reader sees them, but a power cut may still bring back the old
///   file (or no file). Some file systems (certain FUSE and network mounts) refuse to flush a directory at all:
///   every write on them ends this way.
///
/// A crash between the temporary file's creation and its rename leaves it behind, named `.<name>.<UUID>`.
/// ``replace(_:with:permissions:)`` removes its target's leftovers untouched for over an hour, the first time
/// a process replaces that path (listing the directory once, not at every write). Leftovers of
/// ``createOnce(_:with:permissions:)`` stay: each names a file created once and holds no more than it.
public enum DurableFile {
    /// How long a leftover temporary file must have been untouched before it is removed: far longer than any
    /// write takes, so a concurrent writer's temporary file is never taken from it.
    static let staleAge: TimeInterval = 3600

    /// Flushes a directory given its path and an open descriptor; false with `errno` set when it cannot. Tests
    /// pass one that fails.
    package typealias DirectoryFlush = (_ directory: String, _ descriptor: Int32) -> Bool

    /// The flush every public call uses: `fsync` (`F_FULLFSYNC` on Apple platforms) of the directory.
    package static let flushingDirectory: @Sendable (String, Int32) -> Bool = { Self.flush($1) }

    /// Replaces the file at `path` with `bytes`, creating its directory when missing.
    /// - Parameters:
    ///   - path: The file.
    ///   - bytes: Its new contents.
    ///   - permissions: The new file's mode, such as `0o600` for a file only its owner may read.
    /// - Throws: ``TransparencyError``: `.fileSystem` naming the step that failed, the old file then unchanged;
    ///   `.notDurable` when the new contents are in place but the directory could not be flushed.
    public static func replace(_ path: String, with bytes: [UInt8], permissions: Int = 0o644) throws(TransparencyError)
    {
        try self.replace(path, with: bytes, permissions: permissions, flushDirectory: Self.flushingDirectory)
    }

    /// ``replace(_:with:permissions:)``, flushing directories with `flushDirectory`.
    package static func replace(
        _ path: String,
        with bytes: [UInt8],
        permissions: Int,
        flushDirectory: DirectoryFlush
    ) throws(TransparencyError) {
        let temporary = try self.temporaryCopy(
            of: bytes,
            beside: path,
            permissions: permissions,
            flushDirectory: flushDirectory
        )
        guard rename(temporary, path) == 0 else {
            let reason = Self.reason()
            unlink(temporary)
            throw TransparencyError(.fileSystem, "cannot rename \(temporary) to \(path): \(reason)")
        }
        do {
            try self.syncDirectory(of: path, flushDirectory)
        } catch {
            throw TransparencyError(.notDurable, "\(path) is replaced but not durable: \(error.message)")
        }
        StaleTemporaries.shared.removeOnce(beside: path, olderThan: Self.staleAge)
    }

    /// Creates the file at `path` with `bytes` unless it exists, creating its directory when missing; an
    /// existing file is never replaced.
    /// - Parameters:
    ///   - path: The file.
    ///   - bytes: Its contents.
    ///   - permissions: The new file's mode.
    /// - Returns: nil when the file was created; the existing file's contents when there was one.
    /// - Throws: ``TransparencyError``: `.fileSystem` when it can neither be created nor read; `.notDurable`
    ///   when it was created but the directory could not be flushed.
    public static func createOnce(
        _ path: String,
        with bytes: [UInt8],
        permissions: Int = 0o644
    ) throws(TransparencyError) -> [UInt8]? {
        try self.createOnce(path, with: bytes, permissions: permissions, flushDirectory: Self.flushingDirectory)
    }

    /// ``createOnce(_:with:permissions:)``, flushing directories with `flushDirectory`.
    static func createOnce(
        _ path: String,
        with bytes: [UInt8],
        permissions: Int,
        flushDirectory: DirectoryFlush
    ) throws(TransparencyError) -> [UInt8]? {
        let temporary = try self.temporaryCopy(
            of: bytes,
            beside: path,
            permissions: permissions,
            flushDirectory: flushDirectory
        )
        defer { unlink(temporary) }
        // link(2) fails with EEXIST instead of replacing: an existing file is never overwritten.
        if link(temporary, path) == 0 {
            do {
                try self.syncDirectory(of: path, flushDirectory)
            } catch {
                throw TransparencyError(.notDurable, "\(path) is created but not durable: \(error.message)")
            }
            return nil
        }
        let failure = errno
        guard failure == EEXIST else {
            throw TransparencyError(.fileSystem, "cannot create \(path): \(String(cString: strerror(failure)))")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TransparencyError(.fileSystem, "cannot create \(path): it exists but cannot be read")
        }
        return Array(data)
    }

    /// The directory of `path` (`.` for a bare file name).
    static func directory(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    /// A new file beside `path` holding `bytes`, written whole and flushed; its path.
    private static func temporaryCopy(
        of bytes: [UInt8],
        beside path: String,
        permissions: Int,
        flushDirectory: DirectoryFlush
    ) throws(TransparencyError) -> String {
        try self.makeDirectory(Self.directory(of: path), flushDirectory)
        let temporary = "\(Self.directory(of: path))/.\((path as NSString).lastPathComponent).\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(permissions))
        guard descriptor >= 0 else {
            throw TransparencyError(.fileSystem, "cannot create \(temporary): \(Self.reason())")
        }
        var failure: String?
        var offset = 0
        while offset < bytes.count, failure == nil {
            let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                offset += count
            } else if count < 0, errno == EINTR {
                continue
            } else {
                failure = "cannot write \(temporary): \(Self.reason())"
            }
        }
        if failure == nil, !Self.flush(descriptor) {
            failure = "cannot flush \(temporary) to disk: \(Self.reason())"
        }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw TransparencyError(.fileSystem, failure)
        }
        return temporary
    }

    /// Creates `directory` and its missing ancestors, flushing each new one into its parent, so that a crash
    /// cannot take a new directory, and the file then renamed into it, away.
    private static func makeDirectory(_ directory: String, _ flushDirectory: DirectoryFlush) throws(TransparencyError) {
        var missing: [String] = []
        var current = directory
        var info = stat()
        while stat(current, &info) != 0 {
            guard errno == ENOENT else {
                throw TransparencyError(.fileSystem, "cannot create the directory \(current): \(Self.reason())")
            }
            missing.append(current)
            let parent = Self.directory(of: current)
            guard parent != current else { break }
            current = parent
        }
        if missing.isEmpty, Int(info.st_mode) & Int(S_IFMT) != Int(S_IFDIR) {
            throw TransparencyError(
                .fileSystem,
                "cannot create the directory \(directory): \(String(cString: strerror(ENOTDIR)))"
            )
        }
        for created in missing.reversed() {
            guard mkdir(created, 0o777) == 0 || errno == EEXIST else {
                throw TransparencyError(.fileSystem, "cannot create the directory \(created): \(Self.reason())")
            }
            try self.syncDirectory(of: created, flushDirectory)
        }
    }

    /// Flushes the directory of `path`, so that a rename, link or new directory in it survives a crash.
    private static func syncDirectory(of path: String, _ flushDirectory: DirectoryFlush) throws(TransparencyError) {
        let directory = Self.directory(of: path)
        let descriptor = open(directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TransparencyError(.fileSystem, "cannot open the directory \(directory): \(Self.reason())")
        }
        defer { close(descriptor) }
        guard flushDirectory(directory, descriptor) else {
            throw TransparencyError(.fileSystem, "cannot flush the directory \(directory): \(Self.reason())")
        }
    }

    /// Flushes a file or directory to stable storage.
    private static func flush(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
        // F_FULLFSYNC asks the drive to empty its cache; some file systems refuse it, and fsync is then the best.
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
        #endif
        return fsync(descriptor) == 0
    }

    /// The text of the current `errno`.
    private static func reason() -> String { String(cString: strerror(errno)) }
}
