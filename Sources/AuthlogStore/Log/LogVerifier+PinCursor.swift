extension LogVerifier {
    /// The pins ahead of the walk, in order of size, each checked when the recomputed tree reaches its size.
    struct PinCursor {
        /// Every pin the walk compares, sorted by size.
        let pins: [Pin]
        private var next: Int
        /// The largest size a pin of any kind matched at (or where the walk started).
        private var lastGood: Int64
        /// The largest size a note kept outside matched at (or where the walk started).
        private var lastGoodOutside: Int64

        /// Creates a cursor at the first pin; `size` is where the walk starts (0, or the retention anchor's).
        init(pins: [Pin], startingAt size: Int64) {
            self.pins = pins
            self.next = pins.startIndex
            self.lastGood = size
            self.lastGoodOutside = size
        }

        /// Compares the pins of the tree's current size with its root, and moves past them when they match.
        ///
        /// A note kept outside that the events no longer give is a rewrite, bounded below by the last outside note
        /// that matched: a database owner holding the key may have signed the rewritten stored checkpoints and
        /// recorded roots again, so those prove nothing about what was there before. When only the database's own
        /// pins differ and an outside note of the size matches, the database holds a second signed root: a fork.
        mutating func check(_ frontier: MerkleFrontier) -> Report? {
            var atSize: [Pin] = []
            while self.next < self.pins.endIndex, self.pins[self.next].size == frontier.size {
                atSize.append(self.pins[self.next])
                self.next += 1
            }
            guard !atSize.isEmpty else { return nil }
            let root = frontier.root
            let matching = atSize.filter { $0.root == root }
            if let outside = atSize.first(where: { $0.isOutside && $0.root != root }) {
                let resigned = matching.first { !$0.isOutside }.map {
                    " (\($0.source) gives the recomputed root: the log's key signed both)"
                }
                return Self.rewritten(outside, after: self.lastGoodOutside, note: resigned ?? "")
            }
            if let inside = atSize.first(where: { $0.root != root }) {
                if let outside = matching.first(where: \.isOutside) {
                    return .fork(
                        size: frontier.size,
                        reason: "forked: \(inside.source) and \(outside.source) give the tree of \(frontier.size) "
                            + "events different roots; the events give \(outside.source)'s"
                    )
                }
                return Self.rewritten(inside, after: self.lastGood, note: "")
            }
            self.lastGood = frontier.size
            if atSize.contains(where: \.isOutside) { self.lastGoodOutside = frontier.size }
            return nil
        }

        /// The rewrite `pin` shows: a position in (`matched`, pin's size] was changed.
        private static func rewritten(_ pin: Pin, after matched: Int64, note: String) -> Report {
            let first = min(matched + 1, pin.size)
            return .broken(
                position: first,
                reason: "rewritten: the tree of \(pin.size) events no longer has the root given by \(pin.source); "
                    + (first == pin.size
                        ? "position \(first) was changed"
                        : "a position in \(first)…\(pin.size) was changed") + note
            )
        }
    }
}
