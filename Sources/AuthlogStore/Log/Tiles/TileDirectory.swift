import AuthlogCore
public import AuthlogPostgres
import AuthlogTransparency
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes the tree as C2SP tlog-tiles static files into a directory, so that a plain web server publishes it:
/// for the latest signed checkpoint of size s, every full hash tile and entry bundle of the tree of s leaves
/// (each written once, atomically: a temporary file and a rename), the partial tiles of s (`<N>.p/<W>`), and
/// last `checkpoint` (so every tile a published checkpoint needs exists before it). When a full tile is
/// written, the partial tiles of the same index (`<N>.p/`) are removed, as tlog-tiles allows. Tiles of
/// positions retention dropped are skipped (the minimum index). Reads only: never on the write path.
public actor TileDirectory {
    /// The directory.
    public let path: String
    /// The most tiles one ``update(on:)`` writes; the rest follow in the next passes.
    public let tilesPerPass: Int
    /// Per kind of tile: the full tiles below this index are written.
    private var written: [TilePath.Kind: Int64] = [:]
    /// The checkpoint size whose files are all written.
    private var published: Int64 = -1

    /// A writer into `path` (created when missing).
    public init(path: String, tilesPerPass: Int = 2_048) {
        self.path = path
        self.tilesPerPass = tilesPerPass
    }

    /// Writes what the latest checkpoint needs and the writer has not written yet; returns the number of files
    /// written (0 when it was all there). Stops after ``tilesPerPass`` tiles, before the checkpoint: call again.
    /// - Throws: ``StoreError`` from the database or when a file cannot be written.
    @discardableResult
    public func update(on connection: Connection) async throws -> Int {
        guard let checkpoint = try await Checkpointer.stored(size: nil, on: connection),
            checkpoint.size != self.published
        else { return 0 }
        let sealed = try await TileReader.state(on: connection)
        let state = TileReader.State(size: checkpoint.size, anchor: sealed.anchor)
        var count = 0
        var kinds: [TilePath.Kind] = [.entries]
        var level = 0
        while level < 8, checkpoint.size >> Int64(level * TilePath.height) > 0 {
            kinds.append(.hashes(level: level))
            level += 1
        }
        for kind in kinds {
            let nodes = checkpoint.size >> Int64(kind.treeLevel)
            let full = nodes / Int64(TilePath.width)
            var index = self.written[kind] ?? 0
            while index < full {
                guard count < self.tilesPerPass else {
                    self.written[kind] = index
                    return count
                }
                if let tile = TilePath(kind: kind, index: index, width: TilePath.width) {
                    count += try await self.write(tile, state: state, on: connection)
                    try self.remove("\(self.path)/\(tile).p")
                }
                index += 1
            }
            self.written[kind] = full
            let width = Int(nodes % Int64(TilePath.width))
            if width > 0, let tile = TilePath(kind: kind, index: full, width: width) {
                count += try await self.write(tile, state: state, on: connection)
            }
        }
        try self.store(Array(checkpoint.note.utf8), at: "checkpoint")
        self.published = checkpoint.size
        return count + 1
    }

    /// Writes `tile` unless its file exists or its positions were dropped; returns the files written.
    private func write(_ tile: TilePath, state: TileReader.State, on connection: Connection) async throws -> Int {
        guard !FileManager.default.fileExists(atPath: "\(self.path)/\(tile)") else { return 0 }
        let bytes: [UInt8]
        do {
            bytes = try await TileReader.read(tile, state: state, on: connection)
        } catch let error as StoreError where error.code == .dropped {
            return 0
        }
        try self.store(bytes, at: tile.description)
        return 1
    }

    /// Writes `bytes` to `relative` below the directory through a temporary file and rename(2).
    private func store(_ bytes: [UInt8], at relative: String) throws {
        let target = "\(self.path)/\(relative)"
        let folder = (target as NSString).deletingLastPathComponent
        let manager = FileManager.default
        let temporary = "\(folder)/.tmp-\(UUID().uuidString)"
        do {
            try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: temporary))
        } catch {
            throw StoreError(.server, "cannot write \(target): \(error.localizedDescription)")
        }
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            try? manager.removeItem(atPath: temporary)
            throw StoreError(.server, "cannot rename \(temporary) to \(target): \(reason)")
        }
    }

    /// Removes the partial tiles `folder` (`<N>.p`) when present.
    private func remove(_ folder: String) throws {
        guard FileManager.default.fileExists(atPath: folder) else { return }
        do {
            try FileManager.default.removeItem(atPath: folder)
        } catch {
            throw StoreError(.server, "cannot remove \(folder): \(error.localizedDescription)")
        }
    }
}
