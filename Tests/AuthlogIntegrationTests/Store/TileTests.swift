import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// Tile paths exactly as c2sp.org/tlog-tiles writes them.
struct TilePathTests {
    @Test func pathsRoundTripAndIndexesAreSplitInThreeDigitGroups() throws {
        let cases: [(String, TilePath.Kind, Int64, Int)] = [
            ("tile/0/000", .hashes(level: 0), 0, 256),
            ("tile/0/x001/x234/067", .hashes(level: 0), 1_234_067, 256),
            ("tile/1/999.p/255", .hashes(level: 1), 999, 255),
            ("tile/63/x001/000.p/1", .hashes(level: 63), 1000, 1),
            ("tile/entries/005.p/17", .entries, 5, 17),
            ("tile/entries/x009/x223/x372/x036/x854/x775/807", .entries, Int64.max, 256),
        ]
        for (path, kind, index, width) in cases {
            let tile = try #require(TilePath(parsing: Substring(path)), "\(path)")
            #expect(tile.kind == kind && tile.index == index && tile.width == width, "\(path)")
            #expect(tile.description == path)
        }
    }

    @Test func everyOtherSpellingIsRefused() {
        let refused = [
            "tile/0", "tile/0/", "tile//000", "tile/64/000", "tile/00/000", "tile/01/000", "tile/-1/000",
            "tile/0/00", "tile/0/0000", "tile/0/x000/001", "tile/0/001/002", "tile/0/x001", "tile/0/y001/002",
            "tile/0/000.p/0", "tile/0/000.p/256", "tile/0/000.p/01", "tile/0/000.p", "tile/0/000.p/", "tile/0/000/",
            "tile/0/x001.p/234", "tile/entries/000.p/300", "tile/entries", "tile/entry/000", "tiles/0/000",
            "tile/0/x009/x223/x372/x036/x854/x775/808", "tile/0/x001/x001/x001/x001/x001/x001/x001/001",
            "tile/0/+01", "tile/0/ 01", "tile/0/0x1", "tile/8/000.p/1/2",
        ]
        for path in refused {
            #expect(TilePath(parsing: Substring(path)) == nil, "\(path)")
        }
    }
}

/// The tiles authlog serves are the tree its proofs come from: every full tile hashes to its entry one level up,
/// the roots rebuilt from the tiles are the log's roots, and entry bundles rehash to the level-0 tiles, at sizes
/// around tile boundaries.
@Suite(.enabled(if: TestDatabase.isAvailable), .serialized)
struct TileTests {
    @Test func tilesAreTheTreeAtSizesAroundTileBoundaries() async throws {
        var random = SeededRandom(seed: 70_000)
        let total = Int64.random(in: 69_000...71_000, using: &random)
        let database = try await TestDatabase.make()
        try await database.seedSealedEvents(total)
        let connection = try await database.connect()
        #expect(try await EventReader().head(on: connection).size == total)
        for size in [1, 2, 255, 256, 257, 511, 512, 65_535, 65_536, 65_539, total - 1, total] as [Int64] {
            let view = TreeView(size: size, connection: connection)
            #expect(try await view.root() == LogProofs.root(size: size, on: connection), "root of \(size)")
            try await view.checkFullTilesAgainstTheirParents()
            try await view.checkEntryBundles()
        }
        // The spec's example: 70,000 leaves are 273 full level-0 tiles and one of 112, one full level-1 tile and
        // one of 17, and a level-2 tile of 1.
        let state = TileReader.State(size: 70_000, anchor: nil)
        let expected: [(TilePath.Kind, Int64, Int)] = [
            (.hashes(level: 0), 272, 256), (.hashes(level: 0), 273, 112), (.hashes(level: 1), 0, 256),
            (.hashes(level: 1), 1, 17), (.hashes(level: 2), 0, 1), (.entries, 273, 112),
        ]
        for (kind, index, width) in expected {
            #expect(state.covers(try #require(TilePath(kind: kind, index: index, width: width))))
        }
        for (kind, index, width) in [(TilePath.Kind.hashes(level: 0), 273, 113), (.hashes(level: 1), 1, 18)] {
            #expect(!state.covers(try #require(TilePath(kind: kind, index: Int64(index), width: width))))
        }
        #expect(!state.covers(try #require(TilePath(kind: .hashes(level: 3), index: 0, width: 1))))
        #expect(!state.covers(try #require(TilePath(kind: .hashes(level: 63), index: Int64.max, width: 256))))
        // Beyond the sealed tree: out of range.
        let beyond = try #require(TilePath(kind: .entries, index: 300, width: 1))
        #expect(
            await Self.failure { _ = try await TileReader.read(beyond, on: connection) } == .outOfRange,
            "no checkpoint is signed: nothing is served"
        )
    }

    /// After retention dropped positions 1…S, tlog-tiles' minimum index is S: every tile and bundle whose end index
    /// lies past S is served with the bytes it had before the drop (one that straddles S from the anchor's tile
    /// edge), and only a full one that ends at or below S is refused as dropped. An anchor without an edge (stored
    /// before migration 25) publishes its minimum index rounded up past what it cannot serve.
    @Test func everyTileReachingPastTheMinimumIndexIsServedAfterRetention() async throws {
        let database = try await TestDatabase.make()
        try await database.seedSealedEvents(70_000)
        let connection = try await database.connect()
        let size: Int64 = 70_000
        let whole = TileReader.State(size: size, anchor: nil)
        for dropped in [1, 255, 256, 300, 601, 5003, 65_536, 65_800] as [Int64] {
            let anchor = try await LogAnchor.make(size: dropped, on: connection)
            #expect(anchor.edge?.proves(anchor.frontier) == true, "S = \(dropped)")
            let pruned = TileReader.State(size: size, anchor: anchor)
            #expect(pruned.minimumIndex == dropped)
            for tile in Self.tiles(around: dropped, size: size) {
                if !tile.isPartial, Self.endIndex(of: tile) <= dropped {
                    #expect(
                        await Self.failure { _ = try await TileReader.read(tile, state: pruned, on: connection) }
                            == .dropped,
                        "\(tile) ends at or below \(dropped)"
                    )
                } else {
                    let served = try await TileReader.read(tile, state: pruned, on: connection)
                    #expect(
                        served == (try await TileReader.read(tile, state: whole, on: connection)),
                        "\(tile), S = \(dropped)"
                    )
                }
            }
            // Without the edge only the frontier is kept: the minimum index moves past every tile it cannot serve.
            let legacy = TileReader.State(size: size, anchor: LogAnchor(frontier: anchor.frontier))
            let minimum = legacy.minimumIndex
            #expect(minimum >= dropped)
            for tile in Self.tiles(around: minimum, size: size) where Self.endIndex(of: tile) > minimum {
                let served = try await TileReader.read(tile, state: legacy, on: connection)
                #expect(
                    served == (try await TileReader.read(tile, state: whole, on: connection)),
                    "\(tile), m = \(minimum)"
                )
            }
        }
        #expect(
            TileReader.State(
                size: size,
                anchor: LogAnchor(frontier: try await LogAnchor.make(size: 601, on: connection).frontier)
            )
            .minimumIndex == 65_536,
            "601 without its edge: the level-8 hashes 0 and 1 went with their partition"
        )
    }

    /// The tiles and bundles of the tree of `size` around `index` at each level: the one holding it, its
    /// neighbours, the first, and the right edge's partial ones.
    static func tiles(around index: Int64, size: Int64) -> [TilePath] {
        var tiles: [TilePath] = []
        var kinds: [TilePath.Kind] = [.entries]
        var level = 0
        while size >> Int64(8 * level) > 0 {
            kinds.append(.hashes(level: level))
            level += 1
        }
        for kind in kinds {
            let nodes = size >> Int64(kind.treeLevel)
            let holding = index >> Int64(kind.treeLevel + 8)
            for candidate in Set([0, holding - 1, holding, holding + 1, nodes / 256]) where candidate >= 0 {
                let width = Int(min(256, nodes - candidate * 256))
                if width > 0, let tile = TilePath(kind: kind, index: candidate, width: width) { tiles.append(tile) }
            }
        }
        return tiles
    }

    /// tlog-tiles' end index of `tile`: the first leaf index after the leaves its full tile spans.
    static func endIndex(of tile: TilePath) -> Int64 {
        (tile.index + 1) << Int64(tile.treeLevel + 8)
    }

    /// The code of the ``StoreError`` `body` throws (nil when it throws none).
    static func failure(_ body: () async throws -> Void) async -> StoreError.Code? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? StoreError)?.code
        }
    }
}

/// The tree of `size` leaves as tlog-tiles show it, read tile by tile (each tile once).
final class TreeView {
    let size: Int64
    let state: TileReader.State
    let connection: Connection
    private var tiles: [TilePath: [[UInt8]]] = [:]

    init(size: Int64, connection: Connection) {
        self.size = size
        self.state = TileReader.State(size: size, anchor: nil)
        self.connection = connection
    }

    /// The hashes of the tile of `kind` and `index` the tree has (full or partial), 32 bytes each.
    func tile(_ kind: TilePath.Kind, _ index: Int64) async throws -> [[UInt8]] {
        let nodes = self.size >> Int64(kind.treeLevel)
        let width = Int(min(256, nodes - index * 256))
        let tile = try #require(TilePath(kind: kind, index: index, width: width))
        #expect(self.state.covers(tile))
        if let known = self.tiles[tile] { return known }
        let bytes = try await TileReader.read(tile, state: self.state, on: self.connection)
        #expect(bytes.count == width * 32, "\(tile)")
        let hashes = stride(from: 0, to: bytes.count, by: 32).map { Array(bytes[$0..<$0 + 32]) }
        self.tiles[tile] = hashes
        return hashes
    }

    /// The node at tree `level` and `index`, from the tile at level ⌊level / 8⌋.
    func node(level: Int, index: Int64) async throws -> [UInt8] {
        let tileLevel = level / 8
        let span = Int64(1) << Int64(level % 8)
        let first = index * span
        let hashes = try await self.tile(.hashes(level: tileLevel), first / 256)
        let start = Int(first % 256)
        return Self.merkleHash(Array(hashes[start..<start + Int(span)]))
    }

    /// The root from the right edge: the maximal complete subtrees, largest first.
    func root() async throws -> [UInt8] {
        var edge: [[UInt8]] = []
        var start: Int64 = 0
        for level in stride(from: 62, through: 0, by: -1) where self.size & (Int64(1) << Int64(level)) != 0 {
            edge.append(try await self.node(level: level, index: start >> Int64(level)))
            start += Int64(1) << Int64(level)
        }
        guard var root = edge.popLast() else { return MerkleTree.emptyRoot }
        while let left = edge.popLast() { root = MerkleTree.nodeHash(left, root) }
        return root
    }

    /// Every full tile of level L hashes to its entry in the tile of level L + 1.
    func checkFullTilesAgainstTheirParents() async throws {
        var level = 0
        while self.size >> Int64(8 * (level + 1)) > 0 {
            let full = (self.size >> Int64(8 * level)) / 256
            for index in 0..<full {
                let child = Self.merkleHash(try await self.tile(.hashes(level: level), index))
                let parent = try await self.tile(.hashes(level: level + 1), index / 256)
                #expect(parent[Int(index % 256)] == child, "tile \(level)/\(index) of size \(self.size)")
            }
            level += 1
        }
    }

    /// Every entry bundle is the positions' leaf data, each behind its uint16 length, and rehashes to level 0.
    func checkEntryBundles() async throws {
        let bundles = (self.size + 255) / 256
        for index in 0..<bundles {
            let leaves = try await self.tile(.hashes(level: 0), index)
            let tile = try #require(TilePath(kind: .entries, index: index, width: leaves.count))
            let bytes = try await TileReader.read(tile, state: self.state, on: self.connection)
            var offset = 0
            var rehashed: [[UInt8]] = []
            while offset + 2 <= bytes.count {
                let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                let entry = Array(bytes[offset + 2..<offset + 2 + length])
                #expect(length == 40)
                let position = entry.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
                #expect(position == index * 256 + Int64(rehashed.count) + 1)
                rehashed.append(SHA256.hash([0], entry))
                offset += 2 + length
            }
            #expect(offset == bytes.count && rehashed == leaves, "bundle \(index) of size \(self.size)")
        }
    }

    /// MTH of a power-of-two number of hashes.
    static func merkleHash(_ hashes: [[UInt8]]) -> [UInt8] {
        var level = hashes
        while level.count > 1 {
            level = stride(from: 0, to: level.count - 1, by: 2).map { MerkleTree.nodeHash(level[$0], level[$0 + 1]) }
        }
        return level.first ?? MerkleTree.emptyRoot
    }
}
