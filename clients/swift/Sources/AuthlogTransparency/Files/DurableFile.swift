import Foundation

#if canImport(Glibc)
import Glibc
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
/// ``createOnce(_:with:permissions:)``, and the directory is flushed so that the new name is durable too.
public enum DurableFile {
    /// Replaces the file at `path` with `bytes`, creating its directory when missing.
    /// - Parameters:
    ///   - path: The file.
    ///   - bytes: Its new contents.
    ///   - permissions: The new file's mode, such as `0o600` for a file only its owner may read.
    /// - Throws: ``TransparencyError`` `.fileSystem` naming the step that failed; the old file then stays.
    public static func replace(_ path: String, with bytes: [UInt8], permissions: Int = 0o644) throws(TransparencyError)
    {
        let temporary = try self.temporaryCopy(of: bytes, beside: path, permissions: permissions)
        guard rename(temporary, path) == 0 else {
            let reason = Self.reason()
            unlink(temporary)
            throw TransparencyError(.fileSystem, "cannot rename \(temporary) to \(path): \(reason)")
        }
        try self.syncDirectory(of: path)
    }

    /// Creates the file at `path` with `bytes` unless it exists, creating its directory when missing; an
    /// existing file is never replaced.
    /// - Parameters:
    ///   - path: The file.
    ///   - bytes: Its contents.
    ///   - permissions: The new file's mode.
    /// - Returns: nil when the file was created; the existing file's contents when there was one.
    /// - Throws: ``TransparencyError`` `.fileSystem` when it can neither be created nor read.
    public static func createOnce(
        _ path: String,
        with bytes: [UInt8],
        permissions: Int = 0o644
    ) throws(TransparencyError) -> [UInt8]? {
        let temporary = try self.temporaryCopy(of: bytes, beside: path, permissions: permissions)
        defer { unlink(temporary) }
        // link(2) fails with EEXIST instead of replacing: an existing file is never overwritten.
        if link(temporary, path) == 0 {
            try self.syncDirectory(of: path)
            return nil
        }
        let failure = errno
        guard failure == EEXIST, let data = FileManager.default.contents(atPath: path) else {
            throw TransparencyError(.fileSystem, "cannot create \(path): \(String(cString: strerror(failure)))")
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
        permissions: Int
    ) throws(TransparencyError) -> String {
        let directory = Self.directory(of: path)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw TransparencyError(.fileSystem, "cannot create the directory \(directory)")
        }
        let temporary = "\(directory)/.\((path as NSString).lastPathComponent).\(UUID().uuidString)"
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

    /// Flushes the directory of `path`, so that a rename or link in it survives a crash.
    private static func syncDirectory(of path: String) throws(TransparencyError) {
        let directory = Self.directory(of: path)
        let descriptor = open(directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TransparencyError(.fileSystem, "cannot open the directory \(directory): \(Self.reason())")
        }
        defer { close(descriptor) }
        guard Self.flush(descriptor) else {
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
