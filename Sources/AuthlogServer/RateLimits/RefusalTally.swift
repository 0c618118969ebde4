import AuthlogCore

/// Refusals counted per key and window without one event each: the first refusal of a key in a window is
/// handed out at once (to be recorded with count 1), the ones after it are only counted, and when the window
/// closes they come out as one summary. So a flood from one key writes at most two events per window, and the
/// counts still add up to every refused request. Memory is bounded: past `maximumKeys` keys, new keys are
/// counted under `overflowKey` (one summary for all of them).
///
/// A value type with no clock of its own: callers pass the time, so the rules are tested without waiting.
struct RefusalTally<Key: Hashable & Sendable, Detail: Sendable>: Sendable {
    /// What one event records: a key's refusals from `firstAt` to `lastAt`, by kind (a window's first
    /// refusal alone, or the ones after it).
    struct Summary: Sendable {
        let key: Key
        let firstAt: Timestamp
        let lastAt: Timestamp
        let counts: [String: Int]
        /// What the window's first refusal said (its request id, its query).
        let detail: Detail
        /// Whether this is a window's first refusal, recorded at once; else the rest of a window.
        let isFirst: Bool
        /// Every refusal this summary accounts for.
        var count: Int { self.counts.values.reduce(0, +) }
        /// The most frequent kind (ties: the first in name order).
        var mainKind: String {
            self.counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
        }
    }

    private struct Window: Sendable {
        let start: Timestamp
        var firstAt: Timestamp?
        var lastAt: Timestamp
        var counts: [String: Int] = [:]
        let detail: Detail
    }

    let windowSeconds: Int
    let maximumKeys: Int
    let overflowKey: Key
    private var open: [Key: Window] = [:]
    private var ready: [Summary] = []

    init(windowSeconds: Int, maximumKeys: Int = 10_000, overflowKey: Key) {
        self.windowSeconds = windowSeconds
        self.maximumKeys = maximumKeys
        self.overflowKey = overflowKey
    }

    /// The keys counted in an open window.
    var openKeys: Int { self.open.count }

    /// Counts one refusal of `kind` for `key` at `now`.
    mutating func note(_ key: Key, kind: String, detail: Detail, at now: Timestamp) {
        var key = key
        if self.open[key] == nil, self.open.count >= self.maximumKeys {
            self.closeEnded(at: now)
            if self.open.count >= self.maximumKeys { key = self.overflowKey }
        }
        if let window = self.open[key], !self.hasEnded(window, at: now) {
            if window.firstAt == nil { self.open[key]?.firstAt = now }
            self.open[key]?.lastAt = now
            self.open[key]?.counts[kind, default: 0] += 1
            return
        }
        if let ended = self.open[key] { self.close(key, ended) }
        self.open[key] = Window(start: now, firstAt: nil, lastAt: now, detail: detail)
        self.ready.append(
            Summary(key: key, firstAt: now, lastAt: now, counts: [kind: 1], detail: detail, isFirst: true)
        )
    }

    /// Takes what is ready to record: first refusals, and the summaries of windows ended by `now` (of every
    /// open window when `everything`, at shutdown).
    mutating func take(at now: Timestamp, everything: Bool = false) -> [Summary] {
        if everything {
            for (key, window) in self.open { self.close(key, window) }
            self.open = [:]
        } else {
            self.closeEnded(at: now)
        }
        defer { self.ready = [] }
        return self.ready
    }

    private func hasEnded(_ window: Window, at now: Timestamp) -> Bool {
        now.microsecondsSinceEpoch - window.start.microsecondsSinceEpoch >= Int64(self.windowSeconds) * 1_000_000
    }

    private mutating func closeEnded(at now: Timestamp) {
        for (key, window) in self.open where self.hasEnded(window, at: now) {
            self.close(key, window)
            self.open[key] = nil
        }
    }

    /// Moves a window's refusals after its first to `ready`, when there were any.
    private mutating func close(_ key: Key, _ window: Window) {
        guard !window.counts.isEmpty else { return }
        self.ready.append(
            Summary(
                key: key,
                firstAt: window.firstAt ?? window.lastAt,
                lastAt: window.lastAt,
                counts: window.counts,
                detail: window.detail,
                isFirst: false
            )
        )
    }
}

extension RefusalTally where Detail == String {
    /// Counts one refusal of `kind` for `key` at `now`, with nothing to say about it.
    mutating func note(_ key: Key, kind: String, at now: Timestamp) {
        self.note(key, kind: kind, detail: "", at: now)
    }
}

extension RefusalTally.Summary: Equatable where Detail: Equatable {}
