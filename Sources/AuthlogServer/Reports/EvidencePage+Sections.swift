import AuthlogCore
import AuthlogStore
import Foundation

extension EvidencePage {
    /// The causes a session ends by, as `sessions` measures and as labels for people.
    static let endCauses = [
        ("ended_logout", "logout"), ("ended_expiry", "expiry"), ("ended_revocation", "revocation"),
        ("ended_reuse", "reuse"), ("ended_deletion", "deletion"),
    ]

    /// The longest run of days the sign-in chart draws one by one (five years); longer periods draw only the
    /// days with counts.
    static let maximumChartDays: Int64 = 1_830

    /// The title, the period, the verdict and checkpoint at a glance, and the key totals.
    func headerSection() -> String {
        var html = "<header>\n<p class=\"kicker\">Sign-in audit evidence</p>\n"
        html += "<h1>\(SVGMarkup.escape(self.title))</h1>\n<dl class=\"facts\">\n"
        html += "<dt>Period</dt><dd id=\"period\">\(self.time(self.since)) to \(self.time(self.until)) "
        html += "<span class=\"muted\">(start inclusive, end exclusive)</span></dd>\n"
        html += "<dt>Log verification</dt><dd>\(self.verdictBadge())"
        if let verdict = self.verdict { html += " \(SVGMarkup.escape(verdict.summary))" }
        html += "</dd>\n<dt>Latest checkpoint</dt><dd>"
        if let checkpoint = self.checkpoint {
            html += "signed at tree size \(SVGMarkup.count(checkpoint.treeSize)) (see <em>Log integrity</em>)"
        } else {
            html += "no checkpoint signed yet"
        }
        html += "</dd>\n<dt>Generated</dt><dd>\(self.time(self.generatedAt))</dd>\n</dl>\n"
        let signins = self.signinsByDayAndProvider
        let sessions = self.sessionsByProvider
        let ended = SVGMarkup.saturatingSum(Self.endCauses.map { self.total($0.0, of: sessions) })
        let stats: [(Int64, String)] = [
            (self.total("succeeded", of: signins), "successful sign-ins"),
            (self.total("failed", of: signins), "failed sign-ins"),
            (self.refusedRequests, "requests refused"),
            (self.total("started", of: sessions), "sessions started"),
            (ended, "sessions ended"),
            (self.total("active_at_end", of: sessions), "sessions active at the end"),
        ]
        html += "<div class=\"stats\">\n"
        for (value, label) in stats {
            html += "<div class=\"stat\"><span class=\"stat-value\">\(SVGMarkup.count(value))</span>"
            html += "<span class=\"stat-label\">\(label)</span></div>\n"
        }
        return html + "</div>\n</header>\n"
    }

    /// The requests refused without a sign-in event each (rate limits, the edge, audit routes without a valid
    /// key): the `failures` rows named by ``RefusalReason``, summed.
    var refusedRequests: Int64 {
        let report = self.failuresByReason
        guard let reasonIndex = report.dimensions.firstIndex(of: .reason) else { return 0 }
        return SVGMarkup.saturatingSum(
            report.rows.filter { reasonIndex < $0.keys.count && RefusalReason.isRefusal($0.keys[reasonIndex]) }
                .map { report.value("failed", in: $0) }
        )
    }

    /// Notes on counts read from roll-ups after retention, and on edges widened to the hour.
    func noticesSection() -> String {
        let reports = [self.requested, self.signinsByDayAndProvider, self.failuresByReason, self.sessionsByProvider]
            .compactMap { $0 }
        var html = ""
        var seenDropped: [Retention.Dropped] = []
        var seenWidened: [Report.CountedRange] = []
        for report in reports {
            if let dropped = report.dropped, !seenDropped.contains(dropped) {
                seenDropped.append(dropped)
                html += "<p class=\"notice dropped\"><strong>Retention.</strong> The events written through "
                html += "\(SVGMarkup.escape(dropped.throughMonth)) were dropped by retention on "
                html += "\(SVGMarkup.escape(dropped.droppedOn)). Counts before \(self.time(dropped.keptFrom)) come "
                html += "from the hourly roll-ups kept after retention: they are complete, but those events can no "
                html += "longer be listed or verified one by one.</p>\n"
            }
            if let widened = report.widened, !seenWidened.contains(widened) {
                seenWidened.append(widened)
                html += "<p class=\"notice widened\"><strong>Widened period.</strong> An edge of the period falls "
                html += "inside the dropped months, where the roll-ups count by the hour, so it was widened to the "
                html += "whole hour: the counts cover \(self.time(widened.since)) to \(self.time(widened.until)).</p>\n"
            }
        }
        return html
    }

    /// The three charts.
    func chartsSection() -> String {
        var html = "<section id=\"charts\">\n<h2>Charts</h2>\n"
        let (days, series) = self.signinSeries()
        html += "<figure>\n<figcaption><strong>Successful sign-ins per day, by provider</strong>"
        html += "<span class=\"muted\">Each bar is one UTC day; its segments are the identity providers.</span>"
        html += "</figcaption>\n"
        html += SVGChart.stackedDays(
            id: "chart-signins",
            title: "Successful sign-ins per day, by provider",
            days: days,
            series: series,
            unit: "sign-ins"
        )
        html += "\n</figure>\n"
        let failures = self.failuresByReason
        let reasons = failures.rows
            .map {
                SVGChart.Bar(label: failures.key(.reason, in: $0) ?? "all", value: failures.value("failed", in: $0))
            }
            .sorted { $0.value != $1.value ? $0.value > $1.value : $0.label < $1.label }
        html += "<figure>\n<figcaption><strong>Failed sign-ins and refused requests, by reason</strong>"
        html += "<span class=\"muted\">Refused requests (reasons starting rate_limited:, request_refused: or "
        html += "audit_refused:) count every request refused, however few events recorded them.</span>"
        html += "</figcaption>\n"
        html += SVGChart.horizontalBars(
            id: "chart-failures",
            title: "Failed sign-ins and refused requests, by reason",
            bars: reasons,
            color: "#D55E00"
        )
        html += "\n</figure>\n"
        let ends = Self.endCauses.map {
            SVGChart.Bar(label: $0.1, value: self.total($0.0, of: self.sessionsByProvider))
        }
        html += "<figure>\n<figcaption><strong>Sessions ended, by cause</strong></figcaption>\n"
        html += SVGChart.horizontalBars(
            id: "chart-sessions-ended",
            title: "Sessions ended, by cause",
            bars: ends,
            color: "#0072B2"
        )
        return html + "\n</figure>\n</section>\n"
    }

    /// The tables of the three reports the charts are drawn from.
    func tablesSection() -> String {
        var html = "<section id=\"tables\">\n<h2>Tables</h2>\n"
        html += self.table(self.signinsByDayAndProvider, id: "table-signins")
        html += self.table(self.failuresByReason, id: "table-failures")
        html += self.table(self.sessionsByProvider, id: "table-sessions")
        return html + "</section>\n"
    }

    /// The verdict and the latest signed checkpoint, with how to check it.
    func integritySection() -> String {
        var html = "<section id=\"integrity\">\n<h2>Log integrity</h2>\n<h3>Verification</h3>\n"
        switch self.verdict {
        case .some(let verdict):
            let outcome = verdict.passed ? "passed" : "failed"
            html += "<div id=\"verdict\" class=\"verdict \(outcome)\"><p>\(self.verdictBadge()) "
            html += "<code>authlog verify</code> recomputed the Merkle tree from the events and checked every "
            html += "stored checkpoint.</p>\n<p>\(SVGMarkup.escape(verdict.summary))</p></div>\n"
        case .none:
            html += "<div id=\"verdict\" class=\"verdict\"><p>\(self.verdictBadge()) The log was not checked for "
            html += "this page; run <code>authlog verify</code> to check it.</p></div>\n"
        }
        html += "<h3>Latest signed checkpoint</h3>\n<div id=\"checkpoint\">\n"
        guard let checkpoint = self.checkpoint else {
            return html + "<p>No checkpoint signed yet.</p>\n</div>\n</section>\n"
        }
        html += "<p>The log's latest signed checkpoint commits to its first "
        html += "<strong>\(SVGMarkup.count(checkpoint.treeSize))</strong> events. The note, byte for byte:</p>\n"
        // A newline right after <pre> is dropped by HTML parsers, so the note's own first line stays intact.
        html += "<pre class=\"note\">\n\(SVGMarkup.escape(checkpoint.note))</pre>\n"
        if let key = checkpoint.verifierKey {
            html += "<p>The verifier key to check its signature with:</p>\n"
            html += "<pre class=\"verifier-key\">\n\(SVGMarkup.escape(key))</pre>\n"
        } else {
            html += "<p>The verifier key was not given: ask the log's operator for its published verifier key "
            html += "(<code>name+hash+key</code>).</p>\n"
        }
        html += self.witnessesPart()
        html += "<h3>How to check it</h3>\n<ol>\n"
        html += "<li>Save the note above exactly, including its last newline, as <code>note.txt</code>, and the "
        html += "verifier key line as <code>verifier.key</code>.</li>\n"
        html += "<li>Run <code>authlog verify --verifier-key verifier.key --checkpoint note.txt</code> against the "
        html += "log's database: it checks the signature and proves that the log still extends this checkpoint, "
        html += "so no event it covers was removed or rewritten since.</li>\n"
        html += "<li>Without authlog: the note is a signed note in the format of Go's checksum database, so its "
        html += "signature can be checked with Go's <code>golang.org/x/mod/sumdb/note</code> package "
        html += "(<code>note.NewVerifier</code> with the key line, then <code>note.Open</code>).</li>\n"
        return html + "</ol>\n</div>\n</section>\n"
    }

    /// The witnesses that cosigned the log's checkpoints: each one's latest cosigned size and its age.
    func witnessesPart() -> String {
        guard !self.witnesses.isEmpty else { return "" }
        let now = self.generatedAt.microsecondsSinceEpoch / 1_000_000
        var html = "<h3>Witnesses</h3>\n<p>Witnesses (C2SP tlog-witness) cosign a checkpoint only after checking that "
        html += "it extends the one they cosigned before; their cosignature lines follow the log's signature in the "
        html += "note above. The latest checkpoint each one cosigned:</p>\n"
        html += "<table id=\"witnesses\">\n<thead><tr><th>witness</th><th class=\"number\">tree size</th>"
        html += "<th class=\"number\">age</th></tr></thead>\n<tbody>\n"
        for witness in self.witnesses {
            let age = max(0, now - witness.cosignedAt)
            html += "<tr><td>\(SVGMarkup.escape(witness.witness))</td>"
            html += "<td class=\"number\">\(SVGMarkup.count(witness.treeSize))</td>"
            html += "<td class=\"number\">\(Self.age(seconds: age))</td></tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    /// `45 s`, `12 min`, `5 h`, `3 d`.
    static func age(seconds: Int64) -> String {
        switch seconds {
        case ..<120: "\(seconds) s"
        case ..<7_200: "\(seconds / 60) min"
        case ..<172_800: "\(seconds / 3_600) h"
        default: "\(seconds / 86_400) d"
        }
    }

    /// A report as a table: a caption with its period, the dimensions as text columns, the measures as
    /// right-aligned numbers, and the total in the footer.
    func table(_ report: Report, id: String) -> String {
        let dimensions = report.header.prefix(report.dimensions.count)
        let grouping = dimensions.isEmpty ? "" : " by " + dimensions.joined(separator: " and ")
        let keyColumns = max(report.dimensions.count, 1)
        let width = keyColumns + report.kind.measures.count <= 3 ? " narrow" : ""
        var html = "<table id=\"\(id)\" class=\"report \(report.kind.rawValue)\(width)\">\n"
        html += "<caption><strong>\(SVGMarkup.escape(report.kind.title + grouping))</strong>"
        html += "<span class=\"muted\">\(self.time(report.since)) to \(self.time(report.until)), "
        html += "\(report.rows.count) \(report.rows.count == 1 ? "row" : "rows")</span></caption>\n<thead><tr>"
        if dimensions.isEmpty { html += "<th scope=\"col\"></th>" }
        for name in dimensions { html += "<th scope=\"col\">\(self.columnName(name))</th>" }
        for name in report.kind.measures { html += "<th scope=\"col\" class=\"num\">\(self.columnName(name))</th>" }
        html += "</tr></thead>\n<tbody>\n"
        if report.rows.isEmpty {
            html += "<tr><td colspan=\"\(keyColumns + report.kind.measures.count)\" class=\"muted\">"
            html += "\(SVGMarkup.noData)</td></tr>\n"
        }
        for row in report.rows {
            html += "<tr>"
            if dimensions.isEmpty { html += "<td class=\"key\">all</td>" }
            for index in dimensions.indices {
                html += "<td class=\"key\">\(SVGMarkup.escape(index < row.keys.count ? row.keys[index] : ""))</td>"
            }
            for measure in report.kind.measures {
                html += "<td class=\"num\">\(SVGMarkup.count(report.value(measure, in: row)))</td>"
            }
            html += "</tr>\n"
        }
        html += "</tbody>\n<tfoot><tr><th scope=\"row\" colspan=\"\(keyColumns)\">Total</th>"
        for measure in report.kind.measures {
            html += "<td class=\"num\">\(SVGMarkup.count(self.total(measure, of: report)))</td>"
        }
        return html + "</tr></tfoot>\n</table>\n"
    }

    /// The days of the period (or, for very long periods, the days with counts) and one series per provider.
    func signinSeries() -> ([String], [SVGChart.Series]) {
        let report = self.signinsByDayAndProvider
        var days = Set<String>()
        for row in report.rows { if let day = report.key(.day, in: row) { days.insert(day) } }
        if report.until > report.since {
            let first = report.since.dayNumber
            let last = Timestamp(microsecondsSinceEpoch: report.until.microsecondsSinceEpoch - 1).dayNumber
            let (span, overflowed) = last.subtractingReportingOverflow(first)
            if !overflowed, span < Self.maximumChartDays {
                for day in first...last {
                    let (micros, tooFar) = day.multipliedReportingOverflow(by: 86_400_000_000)
                    if !tooFar { days.insert(Timestamp(microsecondsSinceEpoch: micros).dayString) }
                }
            }
        }
        let ordered = days.sorted()
        let position = Dictionary(uniqueKeysWithValues: ordered.enumerated().map { ($1, $0) })
        var counts: [String: [Int64]] = [:]
        for row in report.rows {
            guard let day = report.key(.day, in: row), let index = position[day] else { continue }
            let provider = report.key(.provider, in: row) ?? "all providers"
            var values = counts[provider] ?? Array(repeating: 0, count: ordered.count)
            values[index] = SVGMarkup.saturatingSum([values[index], report.value("succeeded", in: row)])
            counts[provider] = values
        }
        return (ordered, counts.map { SVGChart.Series(name: $0.key, values: $0.value) })
    }

    /// A measure's total over the whole report, 0 when the kind has no such measure.
    func total(_ measure: String, of report: Report) -> Int64 {
        report.value(measure, in: Report.Row(keys: [], values: report.total))
    }

    /// The verdict as a badge: passed, failed or not checked.
    private func verdictBadge() -> String {
        switch self.verdict?.passed {
        case .some(true): return "<span class=\"badge passed\">PASSED</span>"
        case .some(false): return "<span class=\"badge failed\">FAILED</span>"
        case .none: return "<span class=\"badge\">NOT CHECKED</span>"
        }
    }

    /// A column name that may break after its underscores in narrow printed tables.
    private func columnName(_ name: String) -> String {
        SVGMarkup.escape(name).replacingOccurrences(of: "_", with: "_<wbr>")
    }
}
