import AuthlogCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The last checkpoint a signer signed, kept outside the database as the note itself (`latest.note` in the
/// checkpoint directory, or a file beside the key): what the signer must extend, whatever the database says.
/// Written atomically (a temporary file, fsync, rename, fsync of the directory) before the checkpoint is
/// stored, so that a crash never leaves the state behind a checkpoint the world has seen.
public struct SignerState: Sendable {
    /// The state file.
    public let path: String

    /// The state kept at `path`.
    public init(path: String) {
        self.path = path
    }

    /// The note at `path`, nil when there is none yet.
    /// - Throws: ``StoreError`` `.server` when it exists but cannot be read.
    public func read() throws -> String? {
        guard FileManager.default.fileExists(atPath: self.path) else { return nil }
        guard let data = FileManager.default.contents(atPath: self.path) else {
            throw StoreError(.server, "cannot read the signer state \(self.path)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Replaces the state with `note`, durably.
    /// - Throws: ``StoreError`` `.server` when it cannot be written.
    public func write(_ note: String) throws {
        try NoteFiles.replace(self.path, with: note)
    }
}

/// Durable writes of notes: a whole file or nothing, never a half-written one, and never another root over
/// an existing `checkpoint-<size>.note`.
enum NoteFiles {
    /// Writes `text` at `path` through a temporary file, fsync and rename; then fsyncs the directory.
    static func replace(_ path: String, with text: String) throws {
        let temporary = try self.temporaryCopy(of: text, beside: path)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw StoreError(.server, "cannot rename \(temporary) to \(path): \(reason)")
        }
        self.syncDirectory(of: path)
    }

    /// Creates `path` with `text` unless it exists; returns the existing contents when it does (nil: created).
    static func createOnce(_ path: String, with text: String) throws -> String? {
        let temporary = try self.temporaryCopy(of: text, beside: path)
        defer { unlink(temporary) }
        // link(2) fails with EEXIST instead of replacing: an existing note is never overwritten.
        if link(temporary, path) == 0 {
            self.syncDirectory(of: path)
            return nil
        }
        let reason = errno
        guard reason == EEXIST, let data = FileManager.default.contents(atPath: path) else {
            throw StoreError(.server, "cannot create \(path): \(String(cString: strerror(reason)))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func temporaryCopy(of text: String, beside path: String) throws -> String {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.server, "cannot create \(directory): \(error.localizedDescription)")
        }
        let temporary = "\(directory)/.\((path as NSString).lastPathComponent).\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else {
            throw StoreError(.server, "cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced else {
            unlink(temporary)
            throw StoreError(.server, "cannot write \(temporary)")
        }
        return temporary
    }

    private static func syncDirectory(of path: String) {
        let descriptor = open((path as NSString).deletingLastPathComponent, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
