import AuthlogCore

/// Turns the summed groups of ``ReportGroups`` into a ``Report``'s rows and total: which metric and detail
/// feed which column, and the running count of sessions active at the end of each group.
struct ReportTally {
    let kind: Report.Kind
    let dimensions: [Report.Dimension]
    /// The end actually counted (for sessions active at the end).
    let until: Timestamp

    /// End causes that are not revocations (authlog.session_end_cause).
    static let naturalEnds: Set<String> = ["logout", "expiry"]

    /// The label of an unset key.
    static let none = "(none)"

    func report(from groups: [ReportGroups.Group], since: Timestamp, until: Timestamp) -> Report {
        let measures = self.kind.measures
        var rows: [[String]: [Int64]] = [:]
        // Sessions started minus ended before the range, per group without its day.
        var history: [[String]: Int64] = [:]
        for group in groups {
            if !group.inRange {
                history[self.keys(of: group, withDay: false), default: 0] += self.net(group)
                continue
            }
            guard let column = self.column(of: group) else { continue }
            var values = rows[self.keys(of: group, withDay: true)] ?? [Int64](repeating: 0, count: measures.count)
            values[column] = values[column].addingSaturated(group.count)
            rows[self.keys(of: group, withDay: true)] = values
        }
        if self.kind == .sessions { self.countActive(in: &rows, history: history) }
        let sorted = rows.filter { $0.value.contains { $0 != 0 } }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        var total = [Int64](repeating: 0, count: measures.count)
        for (_, values) in sorted {
            for index in values.indices { total[index] = total[index].addingSaturated(values[index]) }
        }
        if let active = measures.firstIndex(of: "active_at_end") {
            // At the end of the whole range: everything before it, started minus ended.
            let before = history.values.reduce(Int64(0)) { $0.addingSaturated($1) }
            let during = groups.filter(\.inRange).reduce(Int64(0)) { $0.addingSaturated(self.net($1)) }
            total[active] = before.addingSaturated(during)
        }
        return Report(
            kind: self.kind,
            since: since,
            until: until,
            dimensions: self.dimensions,
            rows: sorted.map { Report.Row(keys: $0.key, values: $0.value) },
            total: total
        )
    }

    /// The column a group's count goes to; nil when this kind does not count it.
    private func column(of group: ReportGroups.Group) -> Int? {
        let measures = self.kind.measures
        let name: String
        switch (self.kind, group.metric) {
        case (.signins, "signin.succeeded"): name = "succeeded"
        case (.signins, "signin.failed"), (.failures, "signin.failed"), (.failures, "refused"): name = "failed"
        case (.sessions, "session.started"): name = "started"
        case (.sessions, "session.ended"):
            switch group.detail {
            case "logout": name = "ended_logout"
            case "expiry": name = "ended_expiry"
            case "reuse": name = "ended_reuse"
            case "deletion": name = "ended_deletion"
            default: name = "ended_revocation"
            }
        case (.revocations, "session.ended") where !Self.naturalEnds.contains(group.detail): name = "revocations"
        case (.alerts, "signin.flagged"): name = String(group.detail.split(separator: "/").last ?? "")
        default: return nil
        }
        return measures.firstIndex(of: name)
    }

    /// Sessions started minus ended by a group's count.
    private func net(_ group: ReportGroups.Group) -> Int64 {
        switch group.metric {
        case "session.started": return group.count
        case "session.ended": return 0 &- group.count
        default: return 0
        }
    }

    /// The group's keys in the order of the report's dimensions.
    private func keys(of group: ReportGroups.Group, withDay: Bool) -> [String] {
        self.dimensions.compactMap { dimension -> String? in
            switch dimension {
            case .day: return withDay ? group.day : nil
            case .provider: return group.provider.isEmpty ? Self.none : group.provider
            case .client: return group.client.isEmpty ? Self.none : group.client
            case .reason:
                // An alert's detail is `<judgement>/<decision>`: the row is the judgement, the column the decision.
                let detail =
                    self.kind == .alerts ? String(group.detail.split(separator: "/").first ?? "") : group.detail
                return detail.isEmpty ? Self.none : detail
            }
        }
    }

    /// Fills `active_at_end`: per group, what was active before the range plus the running net of its
    /// days in order (or of the whole range when not grouped by day). A group active before the range
    /// without anything in it still gets a row.
    private func countActive(in rows: inout [[String]: [Int64]], history: [[String]: Int64]) {
        guard let active = self.kind.measures.firstIndex(of: "active_at_end"),
            let started = self.kind.measures.firstIndex(of: "started")
        else { return }
        let ended = self.kind.measures.indices.filter { self.kind.measures[$0].hasPrefix("ended_") }
        let dayIndex = self.dimensions.firstIndex(of: .day)
        func withoutDay(_ keys: [String]) -> [String] {
            guard let dayIndex else { return keys }
            var keys = keys
            keys.remove(at: dayIndex)
            return keys
        }
        if dayIndex == nil {
            for keys in history.keys where rows[keys] == nil {
                rows[keys] = [Int64](repeating: 0, count: self.kind.measures.count)
            }
        }
        var running = history
        for keys in rows.keys.sorted(by: { ($0.first ?? "") < ($1.first ?? "") }) {
            guard var values = rows[keys] else { continue }
            let group = withoutDay(keys)
            let net = ended.reduce(values[started]) { $0.addingSaturated(0 &- values[$1]) }
            running[group, default: 0] = running[group, default: 0].addingSaturated(net)
            values[active] = running[group] ?? 0
            rows[keys] = values
        }
    }
}

extension Int64 {
    /// The sum, held at the ends of the range instead of trapping.
    func addingSaturated(_ other: Int64) -> Int64 {
        let (sum, overflowed) = self.addingReportingOverflow(other)
        guard overflowed else { return sum }
        return other > 0 ? .max : .min
    }
}
