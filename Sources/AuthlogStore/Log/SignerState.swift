import AuthlogCore
import AuthlogPostgres
import AuthlogTransparency
import Foundation

/// The last checkpoint a signer signed, kept outside the database as the note itself (`latest.note` in the
/// checkpoint directory, or a file beside the key): what the signer must extend, whatever the database says.
/// Written atomically (``DurableFile``: a temporary file, fsync, rename, fsync of the directory) before the
/// checkpoint is stored, so that a crash never leaves the state behind a checkpoint the world has seen.
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

/// Durable writes of notes, through the verification core's ``DurableFile``: a whole file or nothing, never a
/// half-written one, and never another root over an existing `checkpoint-<size>.note`. Failures are
/// ``StoreError`` `.server`, as the signer reports them.
enum NoteFiles {
    /// Replaces the file at `path` with `text`.
    static func replace(_ path: String, with text: String) throws {
        do {
            try DurableFile.replace(path, with: Array(text.utf8))
        } catch {
            throw StoreError(.server, error.message)
        }
    }

    /// Creates `path` with `text` unless it exists; returns the existing contents when it does (nil: created).
    static func createOnce(_ path: String, with text: String) throws -> String? {
        try self.createOnce(path, bytes: Array(text.utf8))
    }

    /// Creates `path` with `bytes` unless it exists; returns the existing contents when it does (nil: created).
    static func createOnce(_ path: String, bytes: [UInt8]) throws -> String? {
        do {
            return try DurableFile.createOnce(path, with: bytes).map { String(decoding: $0, as: UTF8.self) }
        } catch {
            throw StoreError(.server, error.message)
        }
    }
}
