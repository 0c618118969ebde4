/// What one strict decoding saw: for every object opened as a keyed container, the members present in the
/// document and the names the `Decodable` initialisers asked for. A member present that nobody asked for is
/// unknown; the names asked for are the candidates for "did you mean".
///
/// One decoding uses one ledger, synchronously, on one thread.
final class StrictDecodingLedger {
    private struct Entry {
        var present: [String]
        var asked: [String] = []
        var askedSet: Set<String> = []
        var asksForEverything = false
    }

    private var order: [MemberPath] = []
    private var entries: [MemberPath: Entry] = [:]
    /// Values given as text whose meaning depends on the member's type: taken as written where the member
    /// is text, read as JSON anywhere else.
    let textOverrides: [MemberPath: String]

    init(textOverrides: [MemberPath: String]) {
        self.textOverrides = textOverrides
    }

    /// Records that the object at `path`, whose members are `present`, was opened.
    func open(_ path: MemberPath, present: [String]) {
        if var entry = self.entries[path] {
            entry.present += present.filter { !entry.present.contains($0) }
            self.entries[path] = entry
        } else {
            self.order.append(path)
            self.entries[path] = Entry(present: present)
        }
    }

    /// Records that `name` was asked for in the object at `path`.
    func ask(_ name: String, at path: MemberPath) {
        guard var entry = self.entries[path], !entry.askedSet.contains(name) else { return }
        entry.asked.append(name)
        entry.askedSet.insert(name)
        self.entries[path] = entry
    }

    /// Records that every member of the object at `path` was asked for (a decoder that read `allKeys`).
    func askForEverything(at path: MemberPath) {
        self.entries[path]?.asksForEverything = true
    }

    /// The names asked for in the object at `path`, in the order they were first asked.
    func askedNames(at path: MemberPath) -> [String] {
        self.entries[path]?.asked ?? []
    }

    /// The first member present that nobody asked for, in the order the objects were opened.
    func firstUnknownMember() -> StrictDecodingError? {
        for path in self.order {
            guard let entry = self.entries[path], !entry.asksForEverything else { continue }
            for name in entry.present where !entry.askedSet.contains(name) {
                return StrictDecodingError(
                    path: path.appending(.member(name)),
                    problem: .unknownMember(suggestion: EditDistance.nearest(to: name, among: entry.asked))
                )
            }
        }
        return nil
    }

    /// For a required member missing at `path`: the present member of the same object, not asked for, that
    /// is a likely misspelling of it, reported as that unknown member (the real mistake).
    func misspelling(ofMissing path: MemberPath) -> StrictDecodingError? {
        guard let missing = path.lastMember, let entry = self.entries[path.parent] else { return nil }
        let unasked = entry.present.filter { !entry.askedSet.contains($0) }
        for name in unasked where EditDistance.nearest(to: name, among: [missing]) != nil {
            return StrictDecodingError(
                path: path.parent.appending(.member(name)),
                problem: .unknownMember(suggestion: missing)
            )
        }
        return nil
    }
}
