/// A resource of C2SP tlog-tiles (c2sp.org/tlog-tiles): a hash tile `tile/<L>/<N>[.p/<W>]` or an entry bundle
/// `tile/entries/<N>[.p/<W>]`. Tiles have height 8: the hash tile at level L holds the tree's hashes at height
/// 8·L with indices 256·N ..< 256·N + W; the entry bundle N holds the leaves 256·N ..< 256·N + W.
public struct TilePath: Sendable, Hashable, CustomStringConvertible {
    /// What a tile path names.
    public enum Kind: Sendable, Hashable {
        /// Merkle tree hashes at tile level `L` (tree height 8·L), 0 ≤ L ≤ 63.
        case hashes(level: Int)
        /// Log entries (each the 40-byte leaf data of one position).
        case entries

        /// The tree height of the hashes (0 for entry bundles: they stand for leaves).
        public var treeLevel: Int {
            if case .hashes(let level) = self { return level * TilePath.height }
            return 0
        }
    }

    /// The hashes per full tile and the entries per full bundle.
    public static let width = 256
    /// The tree levels a tile spans.
    public static let height = 8

    /// Hash tile or entry bundle.
    public var kind: Kind
    /// The tile's index within its level.
    public var index: Int64
    /// The number of hashes or entries: 256 for a full tile, 1…255 for a partial one.
    public var width: Int

    /// A tile; nil unless `width` is 1…256, `index` ≥ 0 and a hash level 0…63.
    public init?(kind: Kind, index: Int64, width: Int) {
        guard index >= 0, (1...Self.width).contains(width) else { return nil }
        if case .hashes(let level) = kind, !(0...63).contains(level) { return nil }
        self.kind = kind
        self.index = index
        self.width = width
    }

    /// Whether the tile holds fewer than 256 hashes or entries.
    public var isPartial: Bool { self.width < Self.width }

    /// The tree height of the hashes (0 for entry bundles: they stand for leaves).
    public var treeLevel: Int { self.kind.treeLevel }

    /// The path below the log's prefix, without a leading slash: `tile/0/x001/234`, `tile/entries/005.p/17`.
    public var description: String {
        var path: String
        switch self.kind {
        case .hashes(let level): path = "tile/\(level)/"
        case .entries: path = "tile/entries/"
        }
        path += Self.encode(index: self.index)
        if self.isPartial { path += ".p/\(self.width)" }
        return path
    }

    /// Parses a path below the log's prefix (`tile/…`, no leading slash), exactly as the spec writes it: level
    /// 0…63 and width 1…255 in decimal without leading zeros, the index in 3-digit elements, all but the last
    /// prefixed with `x` and the first not `x000` (one spelling per index). Nil for anything else.
    public init?(parsing path: Substring) {
        var elements = path.split(separator: "/", omittingEmptySubsequences: false)
        guard elements.count >= 3, elements.removeFirst() == "tile" else { return nil }
        let kind: Kind
        let first = elements.removeFirst()
        if first == "entries" {
            kind = .entries
        } else {
            guard let level = Self.decimal(first, in: 0...63) else { return nil }
            kind = .hashes(level: level)
        }
        var width = Self.width
        if elements.count >= 2, elements[elements.count - 2].hasSuffix(".p") {
            guard let partial = Self.decimal(elements[elements.count - 1], in: 1...(Self.width - 1)) else {
                return nil
            }
            width = partial
            elements.removeLast()
            elements[elements.count - 1] = elements[elements.count - 1].dropLast(2)
        }
        guard let index = Self.index(elements) else { return nil }
        self.init(kind: kind, index: index, width: width)
    }

    /// `1234067` → `x001/x234/067`.
    static func encode(index: Int64) -> String {
        var groups: [String] = []
        var rest = index
        repeat {
            let group = String(rest % 1000)
            groups.append(String(repeating: "0", count: 3 - group.count) + group)
            rest /= 1000
        } while rest > 0
        return groups.reversed().enumerated().map { $0.offset < groups.count - 1 ? "x" + $0.element : $0.element }
            .joined(separator: "/")
    }

    /// The index of `x001`, `x234`, `067`: at most 7 elements (an `Int64` has 19 digits), none empty.
    private static func index(_ elements: [Substring]) -> Int64? {
        guard (1...7).contains(elements.count) else { return nil }
        var value: Int64 = 0
        for (offset, element) in elements.enumerated() {
            let isLast = offset == elements.count - 1
            var digits = element
            if !isLast {
                guard digits.first == "x" else { return nil }
                digits = digits.dropFirst()
                if offset == 0, digits == "000" { return nil }
            }
            guard digits.utf8.count == 3, digits.utf8.allSatisfy({ (48...57).contains($0) }), let group = Int64(digits)
            else { return nil }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 1000)
            guard !overflow else { return nil }
            let (sum, overflowed) = shifted.addingReportingOverflow(group)
            guard !overflowed else { return nil }
            value = sum
        }
        return value
    }

    /// A decimal in `range` with no sign and no leading zero.
    private static func decimal(_ text: Substring, in range: ClosedRange<Int>) -> Int? {
        guard (1...3).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }),
            text == "0" || text.first != "0", let value = Int(text), range.contains(value)
        else { return nil }
        return value
    }
}
