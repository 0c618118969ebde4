import AuthlogTransparency
public import Foundation

/// The monitor's record in a JSON file, replaced durably (``DurableFile``: a new file written whole, flushed,
/// renamed over the old one), so that a crash leaves the old record or the new one. Readable by its owner only.
public actor FileCheckpointStore: CheckpointStore {
    /// The file.
    public let url: URL

    /// The largest file read or written: the queue's share (``MonitorRecord/maximumQueueBytes``), the kept note and
    /// an alarm's two notes and proof fit with room to spare.
    public static let maximumBytes = 1024 * 1024

    /// How the file's directory is flushed after each rename; tests pass one that fails.
    private let flushDirectory: @Sendable (_ directory: String, _ descriptor: Int32) -> Bool

    /// A store in the file at `url`; its folder is created when missing.
    public init(url: URL) {
        self.init(url: url, flushDirectory: DurableFile.flushingDirectory)
    }

    /// A store beside `tokenStore`'s file: the same path with `.checkpoint` appended.
    public init(beside tokenStore: FileTokenStore) {
        self.init(url: URL(fileURLWithPath: tokenStore.url.path + ".checkpoint"))
    }

    /// A store in the file at `url` whose directory is flushed with `flushDirectory`.
    package init(url: URL, flushDirectory: @escaping @Sendable (String, Int32) -> Bool) {
        self.url = url
        self.flushDirectory = flushDirectory
    }

    /// The record in the file; an empty one when there is no file.
    /// - Throws: ``MonitorError/store(_:)`` when the file cannot be read, is larger than ``maximumBytes`` or is
    ///   not a record.
    public func load() throws(MonitorError) -> MonitorRecord {
        guard FileManager.default.fileExists(atPath: self.url.path) else { return MonitorRecord() }
        guard let bytes = BoundedFile.contents(atPath: self.url.path, limit: Self.maximumBytes) else {
            throw .store("the checkpoint file cannot be read or is larger than \(Self.maximumBytes) bytes")
        }
        do {
            return try JSONDecoder().decode(MonitorRecord.self, from: Data(bytes))
        } catch {
            throw .store("the checkpoint file is not a monitor record")
        }
    }

    /// Writes `record` to a new 0600 file and renames it over the old one. Once the new file is in place the save has
    /// happened, even when its directory could not be flushed (see ``DurableFile``).
    /// - Throws: ``MonitorError/store(_:)`` when it cannot be written, or when it is larger than ``maximumBytes``
    ///   (the old file stays: a file that could not be read back would lose the kept checkpoint).
    public func save(_ record: MonitorRecord) throws(MonitorError) {
        let bytes: Data
        do {
            bytes = try JSONEncoder().encode(record)
        } catch {
            throw .store("the monitor record cannot be encoded")
        }
        guard bytes.count <= Self.maximumBytes else {
            throw .store("the monitor record is larger than \(Self.maximumBytes) bytes; the file is left as it was")
        }
        do {
            try StoreFile.write(Array(bytes), to: self.url.path, flushDirectory: self.flushDirectory)
        } catch {
            throw .store("the checkpoint file cannot be written (\(error.message))")
        }
    }
}
