import AuthlogCore
public import AuthlogPostgres
import AuthlogTransparency
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes the tree as C2SP tlog-tiles static files into a directory, so that a plain web server publishes what the
/// routes serve: for the latest signed checkpoint of size s, every full hash tile and entry bundle of the tree of s
/// leaves (each written once, atomically: a temporary file and a rename), the partial tiles of s and of every
/// smaller signed checkpoint whose full tile is not there yet (`<N>.p/<W>`; tlog-tiles: a partial tile for every
/// size a checkpoint was produced for),
/// `minimum-index` (tlog-tiles' minimum index in decimal, as `GET /minimum-index` serves it), and last
/// `checkpoint`, with the witnesses' cosignatures stored so far, as `GET /checkpoint` serves it (so every tile a
/// published checkpoint needs exists before it; the checkpoint is written again when more cosignatures arrive).
/// When a full tile is written, the partial tiles of the same index (`<N>.p/`) are removed, as tlog-tiles allows.
/// Tiles that retention's minimum index lets go and the anchor cannot rebuild are skipped. Reads only: never on
/// the write path.
public actor TileDirectory {
    /// The directory.
    public let path: String
    /// The most tiles one ``update(on:)`` writes; the rest follow in the next passes.
    public let tilesPerPass: Int
    /// Per kind of tile: the full tiles below this index are written.
    private var written: [TilePath.Kind: Int64] = [:]
    /// The checkpoint size whose tiles are all written.
    private var tiled: Int64 = -1
    /// The contents of `minimum-index` and `checkpoint` as last written.
    private var published: (minimumIndex: String, checkpoint: String)?

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
        guard let checkpoint = try await CosignedCheckpoint.latest(on: connection) else { return 0 }
        let state = TileReader.State(size: checkpoint.size, anchor: try await LogAnchor.latest(on: connection))
        var count = 0
        if checkpoint.size != self.tiled {
            let tiles = try await self.writeTiles(of: checkpoint.size, state: state, on: connection)
            guard tiles.isComplete else { return tiles.written }
            count += tiles.written
            self.tiled = checkpoint.size
        }
        let minimumIndex = "\(state.minimumIndex)\n"
        if self.published?.minimumIndex != minimumIndex {
            try self.store(Array(minimumIndex.utf8), at: "minimum-index")
            count += 1
        }
        if self.published?.checkpoint != checkpoint.note {
            try self.store(Array(checkpoint.note.utf8), at: "checkpoint")
            count += 1
        }
        self.published = (minimumIndex, checkpoint.note)
        return count
    }

    /// Writes the tiles of the tree of `size` leaves not written yet: the number written, and whether they are all
    /// there (false when the pass stopped at ``tilesPerPass``).
    private func writeTiles(
        of size: Int64,
        state: TileReader.State,
        on connection: Connection
    ) async throws -> (written: Int, isComplete: Bool) {
        var count = 0
        var kinds: [TilePath.Kind] = [.entries]
        var level = 0
        while level < 8, size >> Int64(level * TilePath.height) > 0 {
            kinds.append(.hashes(level: level))
            level += 1
        }
        for kind in kinds {
            let nodes = size >> Int64(kind.treeLevel)
            let full = nodes / Int64(TilePath.width)
            var index = self.written[kind] ?? 0
            while index < full {
                guard count < self.tilesPerPass else {
                    self.written[kind] = index
                    return (count, false)
                }
                if let tile = TilePath(kind: kind, index: index, width: TilePath.width) {
                    count += try await self.write(tile, state: state, on: connection)
                    try self.remove("\(self.path)/\(tile).p")
                }
                index += 1
            }
            self.written[kind] = full
            // Not capped by tilesPerPass: at most 255 widths per kind.
            for width in try await self.partialWidths(of: kind, index: full, upTo: size, on: connection) {
                if let tile = TilePath(kind: kind, index: full, width: width) {
                    count += try await self.write(tile, state: state, on: connection)
                }
            }
        }
        return (count, true)
    }

    /// The widths of the partial tiles of `kind` at `index` (the first one the tree of `size` leaves does not fill)
    /// that the signed checkpoints of at most `size` leaves need and the writer has not written yet: tlog-tiles
    /// wants a partial tile served for every size a checkpoint was produced for, not only the latest (a client may
    /// hold any of them), until its full tile exists. Read from `authlog.checkpoints` past the last size tiled
    /// (at most 255 widths; those whose file exists are skipped by ``write(_:state:on:)``).
    private func partialWidths(
        of kind: TilePath.Kind,
        index: Int64,
        upTo size: Int64,
        on connection: Connection
    ) async throws -> [Int] {
        let shift = Int64(kind.treeLevel)
        // The first size whose tile at `index` is partial: index · 256 · 2^shift (saturating above 2^62).
        let span: Int64 = shift + 8 < 63 ? Int64(TilePath.width) << shift : Int64.max
        let (start, overflow) = index.multipliedReportingOverflow(by: span)
        guard !overflow else { return [] }
        let rows = try await connection.query(
            """
            SELECT DISTINCT ((tree_size >> \(shift)::int) % 256)::bigint FROM authlog.checkpoints
            WHERE tree_size > \(max(self.tiled, start - 1)) AND tree_size <= \(size)
            """
        )
        return try rows.rows.map { Int(try $0.decode(Int64.self, at: 0)) }.filter { $0 > 0 }.sorted()
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
