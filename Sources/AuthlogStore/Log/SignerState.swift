import AuthlogCore
import AuthlogPostgres
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

    /// Replaces the state with `note`, durably, unless the state already holds a larger checkpoint (two
    /// signers sharing the state never move it back).
    /// - Throws: ``StoreError`` `.server` when it cannot be written.
    public func write(_ note: String) throws {
        if let existing = try self.read(), let held = Self.size(of: existing), let new = Self.size(of: note), held > new
        {
            return
        }
        try NoteFiles.replace(self.path, with: note)
    }

    /// The tree size a checkpoint note states (its second line).
    private static func size(of note: String) -> Int64? {
        let lines = note.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        return lines.count > 1 ? Int64(lines[1]) : nil
    }

    /// Where the position after which every event must carry a MAC is kept: beside the state.
    private var macsPath: String { self.path + ".macs-required-after" }

    /// The position after which this signer requires every event to carry a valid MAC under the event key
    /// (nil: it has not signed with the key yet).
    /// - Throws: ``StoreError`` `.server` when the file exists but is not a position.
    public func macsRequiredAfter() throws -> Int64? {
        guard FileManager.default.fileExists(atPath: self.macsPath) else { return nil }
        guard let data = FileManager.default.contents(atPath: self.macsPath), data.count <= 32,
            let position = Int64(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
            position >= 0
        else { throw StoreError(.server, "\(self.macsPath) is not a position") }
        return position
    }

    /// Requires a MAC on every event after `position` from now on (written once, when the signer first signs
    /// with the event key).
    /// - Throws: ``StoreError`` `.server` when it cannot be written.
    public func requireMACs(after position: Int64) throws {
        try NoteFiles.replace(self.macsPath, with: "\(position)\n")
    }
}

/// Durable writes of notes: a whole file or nothing, never a half-written one, and never another root over
/// an existing `checkpoint-<size>.note`.
enum NoteFiles {
    /// Writes `text` at `path` through a temporary file, fsync and rename; then fsyncs the directory.
    static func replace(_ path: String, with text: String) throws {
        let temporary = try self.temporaryCopy(of: Array(text.utf8), beside: path)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw StoreError(.server, "cannot rename \(temporary) to \(path): \(reason)")
        }
        self.syncDirectory(of: path)
    }

    /// Creates `path` with `text` unless it exists; returns the existing contents when it does (nil: created).
    static func createOnce(_ path: String, with text: String) throws -> String? {
        try self.createOnce(path, bytes: Array(text.utf8))
    }

    /// Creates `path` with `bytes` unless it exists; returns the existing contents when it does (nil: created).
    static func createOnce(_ path: String, bytes: [UInt8]) throws -> String? {
        let temporary = try self.temporaryCopy(of: bytes, beside: path)
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

    private static func temporaryCopy(of bytes: [UInt8], beside path: String) throws -> String {
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
