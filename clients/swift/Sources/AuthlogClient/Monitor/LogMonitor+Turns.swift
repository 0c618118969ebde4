extension LogMonitor {
    /// Work that runs one at a time, though the actor's methods interleave at each `await`.
    enum Turn: Hashable {
        /// A round of checks: rounds share the kept checkpoint.
        case round
        /// A write of the record.
        case write
    }

    /// Waits until no other work of `turn`'s kind runs, then holds the turn until ``release(_:)``.
    func acquire(_ turn: Turn) async {
        guard self.turns[turn] != nil else {
            self.turns[turn] = []
            return
        }
        await withCheckedContinuation { self.turns[turn, default: []].append($0) }
    }

    /// Hands `turn` to the next work waiting for it, if any.
    func release(_ turn: Turn) {
        guard var waiting = self.turns[turn], !waiting.isEmpty else {
            self.turns[turn] = nil
            return
        }
        let next = waiting.removeFirst()
        self.turns[turn] = waiting
        next.resume()
    }
}
