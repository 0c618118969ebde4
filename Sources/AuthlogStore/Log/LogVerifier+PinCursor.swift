import AuthlogTransparency

extension LogVerifier {
    /// The pins ahead of the walk, in order of size, each checked when the recomputed tree reaches its size.
    struct PinCursor {
        /// Every pin the walk compares, sorted by size.
        let pins: [Pin]
        private var next: Int
        private var lastGood: Int64

        /// Creates a cursor at the first pin; `size` is where the walk starts (0, or the retention anchor's).
        init(pins: [Pin], startingAt size: Int64) {
            self.pins = pins
            self.next = pins.startIndex
            self.lastGood = size
        }

        /// Compares the pins of the tree's current size with its root, and moves past them when they match.
        mutating func check(_ frontier: MerkleFrontier) -> Report? {
            while self.next < self.pins.endIndex, self.pins[self.next].size == frontier.size {
                let pin = self.pins[self.next]
                if frontier.root != pin.root {
                    // The pins of one size agree (forks are found first), and the last pin below matched: the
                    // change lies after it, up to this size.
                    let first = min(self.lastGood + 1, pin.size)
                    return .broken(
                        position: first,
                        reason:
                            "rewritten: the tree of \(pin.size) events no longer has the root given by \(pin.source); "
                            + (first == pin.size
                                ? "position \(first) was changed"
                                : "a position in \(first)…\(pin.size) was changed")
                    )
                }
                self.lastGood = pin.size
                self.next += 1
            }
            return nil
        }
    }
}
