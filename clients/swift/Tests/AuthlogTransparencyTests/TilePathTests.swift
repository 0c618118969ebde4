import AuthlogTransparency
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
