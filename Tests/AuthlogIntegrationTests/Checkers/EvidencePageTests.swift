import AuthlogCore
import AuthlogTransparency
import Foundation
import Testing

@testable import AuthlogServer
@testable import AuthlogStore

#if canImport(Glibc)
import Glibc
#endif

extension Checkers {
    /// The auditors' HTML page: self-contained, inert whatever the data holds, with its charts, tables, verdict and
    /// checkpoint; and rendered for real by headless Chromium.
    @Suite struct EvidencePageTests {
        static let hostileProvider = "<script>alert(1)</script>"
        static let hostileReason = "bad\"' onmouseover='alert(2)"
        static let providers = ["apple", "google", "github", Self.hostileProvider]

        // MARK: Self-contained and inert

        @Test func pageLoadsNothingAndRunsNothing() throws {
            let html = try Self.page().render()
            #expect(html.hasPrefix("<!DOCTYPE html>"))
            #expect(
                html.contains("Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"")
            )
            let lowered = html.lowercased()
            for forbidden in ["<script", "http://", "https://", "src=", "href=", "url(", "@import", "<iframe", "<img"] {
                #expect(!lowered.contains(forbidden), "found \(forbidden)")
            }
            for tag in Self.tags(in: html) {
                #expect(
                    tag.range(of: #"\son[a-z]+\s*="#, options: [.regularExpression, .caseInsensitive]) == nil,
                    "\(tag)"
                )
                let name = tag.dropFirst().prefix { $0.isLetter || $0.isNumber || $0 == "-" }.lowercased()
                #expect(!["script", "foreignobject", "image", "use", "link", "object", "embed", "a"].contains(name))
            }
        }

        @Test func hostileNamesComeOutInert() throws {
            var page = try Self.page(
                checkpoint: .init(note: "evil<b>&'\"</b>\n1\nroot\n", verifierKey: "k<i>", treeSize: 1)
            )
            page.title = "authlog evidence: <script>alert(3)</script>"
            let html = page.render()
            #expect(!html.contains("<script"))
            #expect(!html.contains("<b>") && !html.contains("<i>"))
            #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(html.contains("<title>authlog evidence: &lt;script&gt;alert(3)&lt;/script&gt;</title>"))
            #expect(html.contains("bad&quot;&#39; onmouseover=&#39;alert(2)"))
            #expect(html.contains("<pre class=\"note\">\nevil&lt;b&gt;&amp;&#39;&quot;&lt;/b&gt;\n1\nroot\n</pre>"))
            #expect(html.contains("k&lt;i&gt;"))
            #expect(SVGMarkup.escape("&<>\"'") == "&amp;&lt;&gt;&quot;&#39;")
        }

        // MARK: Charts

        @Test func chartsDrawEveryCountWithLegendAndAxes() throws {
            let page = try Self.page()
            let html = page.render()
            #expect(html.components(separatedBy: "<svg ").count - 1 == 3)
            let signins = try Self.chart("chart-signins", in: html)
            let cells = page.signinsByDayAndProvider.rows.filter {
                page.signinsByDayAndProvider.value("succeeded", in: $0) > 0
            }
            #expect(Self.count("class=\"bar ", in: signins) == cells.count)
            #expect(Self.count("class=\"legend-item\"", in: signins) == Self.providers.count)
            #expect(Self.count("class=\"y-tick\"", in: signins) >= 3)
            let labels = Self.count("class=\"x-label\"", in: signins)
            #expect((5...30).contains(labels))
            #expect(signins.contains(">10-24</text>"), "the first day is labelled")
            #expect(signins.contains(">UTC day, 2026</text>") && signins.contains(">sign-ins</text>"))
            let failures = try Self.chart("chart-failures", in: html)
            #expect(Self.count("class=\"bar\"", in: failures) == 5)
            #expect(failures.contains(">1,234</text>"))
            let labelsInOrder = ["rate_limited", "invalid_token", "expired_nonce", "audience_mismatch"]
                .compactMap { failures.range(of: ">\($0)</text>")?.lowerBound }
            #expect(labelsInOrder.count == 4 && labelsInOrder == labelsInOrder.sorted(), "biggest reason first")
            let ended = try Self.chart("chart-sessions-ended", in: html)
            #expect(Self.count("class=\"bar\"", in: ended) == 5)
            for cause in ["logout", "expiry", "revocation", "reuse", "deletion"] {
                #expect(ended.contains(">\(cause)</text>"))
            }
            #expect(!html.contains(SVGMarkup.noData))
        }

        @Test func emptyPeriodSaysSoInEveryChartAndTable() throws {
            let since = try Self.at("2026-10-24")
            let until = try Self.at("2026-11-23")
            let page = EvidencePage(
                title: "empty",
                generatedAt: until,
                since: since,
                until: until,
                signinsByDayAndProvider: Report(
                    kind: .signins,
                    since: since,
                    until: until,
                    dimensions: [.day, .provider],
                    rows: [],
                    total: [0, 0]
                ),
                failuresByReason: Report(
                    kind: .failures,
                    since: since,
                    until: until,
                    dimensions: [.reason],
                    rows: [],
                    total: [0]
                ),
                sessionsByProvider: Report(
                    kind: .sessions,
                    since: since,
                    until: until,
                    dimensions: [.provider],
                    rows: [],
                    total: Array(repeating: 0, count: 7)
                )
            )
            let html = page.render()
            #expect(Self.count("class=\"no-data\"", in: html) == 3)
            #expect(Self.count("<td colspan=\"4\" class=\"muted\">no data in this period</td>", in: html) == 1)
            #expect(!html.contains("class=\"bar"))
        }

        @Test func oneDayAndAYearBothFit() throws {
            let one = try Self.page(days: 1)
            let oneChart = try Self.chart("chart-signins", in: one.render())
            #expect(Self.count("class=\"x-label\"", in: oneChart) == 1)
            #expect(Self.count("class=\"bar ", in: oneChart) == Self.providers.count)
            #expect(Self.widths(in: oneChart).allSatisfy { $0 <= 36 }, "a lone day's bar stays a bar, not a slab")

            let year = try Self.page(days: 365)
            let yearChart = try Self.chart("chart-signins", in: year.render())
            let labels = Self.count("class=\"x-label\"", in: yearChart)
            #expect((8...20).contains(labels), "every Nth day is labelled: \(labels)")
            #expect(Self.widths(in: yearChart).allSatisfy { $0 > 0 && $0 < 2.5 })
            #expect(yearChart.contains(">2026-10-24</text>"), "days across two years carry the year")
        }

        @Test func hugeCountsScaleWithoutOverflow() throws {
            let since = try Self.at("2026-10-24")
            let until = try Self.at("2026-10-26")
            let rows = ["a", "b", "c"].map { Report.Row(keys: ["2026-10-24", $0], values: [.max, .max]) }
            let signins = Report(
                kind: .signins,
                since: since,
                until: until,
                dimensions: [.day, .provider],
                rows: rows,
                total: [.max, .max]
            )
            let failures = Report(
                kind: .failures,
                since: since,
                until: until,
                dimensions: [.reason],
                rows: [.init(keys: ["x"], values: [.max])],
                total: [.max]
            )
            let sessions = Report(
                kind: .sessions,
                since: since,
                until: until,
                dimensions: [.provider],
                rows: [],
                total: Array(repeating: .max, count: 7)
            )
            let html = EvidencePage(
                title: "huge",
                generatedAt: until,
                since: since,
                until: until,
                signinsByDayAndProvider: signins,
                failuresByReason: failures,
                sessionsByProvider: sessions
            ).render()
            #expect(html.contains("9,223,372,036,854,775,807"))
            let charts = try ["chart-signins", "chart-failures", "chart-sessions-ended"].map {
                try Self.chart($0, in: html)
            }
            for chart in charts {
                #expect(!chart.lowercased().contains("nan") && !chart.lowercased().contains("inf"))
                #expect(Self.widths(in: chart).allSatisfy { $0 <= SVGChart.width })
            }
            #expect(
                charts[0].contains(">3e19</text>"),
                "the count axis reaches past the stacked sum: \(charts[0].count)"
            )
        }

        @Test func manyProvidersShareOneOtherColor() throws {
            let since = try Self.at("2026-10-24")
            let names = (1...12).map { "provider-\($0)" }
            let rows = names.enumerated().map { Report.Row(keys: ["2026-10-24", $1], values: [Int64(100 - $0), 0]) }
            var page = try Self.page()
            page.signinsByDayAndProvider = Report(
                kind: .signins,
                since: since,
                until: since.adding(seconds: 86_400),
                dimensions: [.day, .provider],
                rows: rows,
                total: [0, 0]
            )
            let chart = try Self.chart("chart-signins", in: page.render())
            #expect(Self.count("class=\"legend-item\"", in: chart) == SVGMarkup.palette.count + 1)
            #expect(chart.contains("other (5 more)"))
            #expect(chart.contains("fill=\"\(SVGMarkup.otherColor)\""))
        }

        // MARK: Tables, verdict, checkpoint, notes

        @Test func tablesCarryEveryNumber() throws {
            let page = try Self.page(requested: true)
            let html = page.render()
            let requested = try #require(html.range(of: "id=\"table-requested\""))
            let charts = try #require(html.range(of: "id=\"charts\""))
            #expect(requested.lowerBound < charts.lowerBound, "the requested report comes first")
            for (id, report) in [
                ("table-signins", page.signinsByDayAndProvider), ("table-failures", page.failuresByReason),
                ("table-sessions", page.sessionsByProvider),
            ] {
                let table = try Self.element("<table id=\"\(id)\"", until: "</table>", in: html)
                #expect(Self.count("<tbody>", in: table) == 1)
                #expect(Self.count("<tr><td class=\"key\">", in: table) == report.rows.count)
                for row in report.rows {
                    let cells = row.values.map { "<td class=\"num\">\(SVGMarkup.count($0))</td>" }.joined()
                    #expect(table.contains(cells + "</tr>"), "\(id) \(row.keys)")
                }
                let total = report.total.map { "<td class=\"num\">\(SVGMarkup.count($0))</td>" }.joined()
                #expect(table.contains(total + "</tr></tfoot>"))
            }
            #expect(html.contains("<span class=\"stat-value\">1,234,567</span>"))
            #expect(html.contains("<th scope=\"col\" class=\"num\">ended_<wbr>revocation</th>"))
            #expect(html.contains("<time datetime=\"2026-10-24T00:00:00.000000Z\">2026-10-24 00:00:00 UTC</time>"))
            #expect(
                SVGMarkup.count(-1_234_567) == "-1,234,567" && SVGMarkup.count(.min) == "-9,223,372,036,854,775,808"
            )
        }

        @Test func verdictAndCheckpointSayWhatTheyKnow() throws {
            let none = try Self.page().render()
            #expect(none.contains("NOT CHECKED") && none.contains("No checkpoint signed yet."))
            #expect(none.contains("no checkpoint signed yet"))

            let note =
                "auth.example.com/log\n1204\nq2Y8dd0bN1sAbdK3Lk0p4u1OCwHVZ2mcVpBDOjmCkls=\n\n\u{2014} auth.example.com/log Az3gkd==\n"
            let key = "auth.example.com/log+0f3a91c2+AbCdEf0123"
            let passed = try Self.page(
                verdict: .init(passed: true, summary: "log intact: 1204 events, root q2Y8=, 12 checkpoints match"),
                checkpoint: .init(note: note, verifierKey: key, treeSize: 1_204)
            ).render()
            #expect(passed.contains("<span class=\"badge passed\">PASSED</span>"))
            #expect(passed.contains("log intact: 1204 events, root q2Y8=, 12 checkpoints match"))
            #expect(passed.contains("<pre class=\"note\">\n\(note)</pre>"))
            #expect(passed.contains("<pre class=\"verifier-key\">\n\(key)</pre>"))
            #expect(passed.contains("authlog verify --verifier-key verifier.key --checkpoint note.txt"))
            #expect(passed.contains("golang.org/x/mod/sumdb/note"))
            #expect(passed.contains("<strong>1,204</strong> events"))

            let failed = try Self.page(
                verdict: .init(passed: false, summary: "log broken at position 17: leaf mismatch")
            )
            .render()
            #expect(failed.contains("<span class=\"badge failed\">FAILED</span>") && !failed.contains("PASSED"))
            #expect(failed.contains("log broken at position 17: leaf mismatch"))
        }

        @Test func witnessesAreNamedWithTheirLatestSizeAndAge() throws {
            let note =
                "auth.example.com/log\n1204\nq2Y8dd0bN1sAbdK3Lk0p4u1OCwHVZ2mcVpBDOjmCkls=\n\n\u{2014} auth.example.com/log Az3gkd==\n"
            var page = try Self.page(checkpoint: .init(note: note, verifierKey: nil, treeSize: 1_204))
            #expect(!page.render().contains("<h3>Witnesses</h3>"))
            page.generatedAt = Timestamp(microsecondsSinceEpoch: 1_795_600_000 * 1_000_000)
            page.witnesses = [
                .init(witness: "witness.example/w1", treeSize: 1_204, cosignedAt: 1_795_600_000 - 45),
                .init(witness: "w<2>", treeSize: 1_100, cosignedAt: 1_795_600_000 - 7_300),
            ]
            let html = page.render()
            #expect(html.contains("<h3>Witnesses</h3>"))
            #expect(
                html.contains(
                    "<tr><td>witness.example/w1</td><td class=\"number\">1,204</td><td class=\"number\">45 s</td></tr>"
                )
            )
            #expect(
                html.contains(
                    "<tr><td>w&lt;2&gt;</td><td class=\"number\">1,100</td><td class=\"number\">2 h</td></tr>"
                )
            )
        }

        @Test func retentionAndWideningAreExplained() throws {
            var page = try Self.page()
            #expect(!page.render().contains("class=\"notice"))
            let keptFrom = try Self.at("2026-11-01")
            page.signinsByDayAndProvider.dropped = Retention.Dropped(
                throughMonth: "2026-10",
                droppedOn: "2026-11-15",
                keptFrom: keptFrom
            )
            page.failuresByReason.dropped = page.signinsByDayAndProvider.dropped
            page.sessionsByProvider.widened = Report.CountedRange(
                since: try Self.at("2026-10-24T00:00:00Z"),
                until: try Self.at("2026-11-23T01:00:00Z")
            )
            let html = page.render()
            #expect(Self.count("class=\"notice dropped\"", in: html) == 1, "one note per distinct retention")
            #expect(
                html.contains("Counts before <time datetime=\"\(keptFrom.description)\">2026-11-01 00:00:00 UTC</time>")
            )
            #expect(html.contains("roll-ups kept after retention"))
            #expect(Self.count("class=\"notice widened\"", in: html) == 1)
            #expect(html.contains("2026-11-23 01:00:00 UTC"))
        }

        @Test func axisNumbersStayShortAndRound() {
            #expect(SVGMarkup.ticks(upTo: 0) == [0, 1])
            #expect(SVGMarkup.ticks(upTo: 3) == [0, 1, 2, 3])
            #expect(SVGMarkup.ticks(upTo: 87) == [0, 20, 40, 60, 80, 100])
            #expect(SVGMarkup.ticks(upTo: 1_002_026) == [0, 200_000, 400_000, 600_000, 800_000, 1_000_000, 1_200_000])
            #expect(SVGMarkup.ticks(upTo: 2.7e19).last == 3e19)
            #expect(SVGMarkup.compact(1_500) == "1,500" && SVGMarkup.compact(25_000) == "25k")
            #expect(SVGMarkup.compact(1_500_000) == "1.5M" && SVGMarkup.compact(3e19) == "3e19")
        }

        // MARK: Chromium

        /// Renders the page in headless Chromium: no console errors, the DOM holds the charts, the screenshot is
        /// a real picture, and printing gives an A4 PDF.
        @Test(.timeLimit(.minutes(5))) func chromiumRendersScreenshotAndPDF() async throws {
            guard let chromium = Chromium.find() else {
                if ProcessInfo.processInfo.environment["CI"] == "true" {
                    Issue.record("chromium is not on PATH; CI requires it")
                } else {
                    print("EvidencePageTests: skipping the Chromium check: chromium is not on PATH")
                }
                return
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evidence-page-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let page = directory.appendingPathComponent("evidence.html")
            let note =
                "auth.example.com/log\n1204\nq2Y8dd0bN1sAbdK3Lk0p4u1OCwHVZ2mcVpBDOjmCkls=\n\n"
                + "\u{2014} auth.example.com/log Az3gkdWm0c0I8Tq6nYl0xyXmjQ3n+0u0E4c9GzSxwIFJbdmUuR8QJpDdd0a6ZXpbzmZkYH6J=\n"
            let evidence = try Self.page(
                requested: true,
                verdict: .init(passed: true, summary: "log intact: 1204 events, root q2Y8=, 12 checkpoints match"),
                checkpoint: .init(note: note, verifierKey: "auth.example.com/log+0f3a91c2+AbCdEf0123", treeSize: 1_204)
            )
            try Data(evidence.render().utf8).write(to: page)
            let url = page.absoluteString
            let screenshot = directory.appendingPathComponent("evidence.png")
            let pdf = directory.appendingPathComponent("evidence.pdf")

            let shot = try await Chromium.run(
                chromium,
                [
                    "--screenshot=\(screenshot.path)", "--window-size=1280,2400", "--enable-logging=stderr", "--v=0",
                    url,
                ],
                in: directory
            )
            #expect(!shot.timedOut && shot.status == 0, "chromium: \(shot.stderr.suffix(2_000))")
            let consoleErrors = shot.stderr.split(separator: "\n").filter {
                $0.contains("CONSOLE") || $0.contains("Uncaught") || $0.contains("Content Security Policy")
            }
            #expect(consoleErrors.isEmpty, "\(consoleErrors)")
            let png = try Data(contentsOf: screenshot)
            print("EvidencePageTests: screenshot at \(screenshot.path), copied to /tmp/evidence-screenshot.png")
            try? FileManager.default.removeItem(atPath: "/tmp/evidence-screenshot.png")
            try? FileManager.default.copyItem(atPath: screenshot.path, toPath: "/tmp/evidence-screenshot.png")
            let image = try #require(PNGSummary(png))
            #expect(image.width == 1_280 && image.height == 2_400)
            #expect(
                image.compressedPixelBytes > 60_000,
                "a blank page compresses to a few KB: \(image.compressedPixelBytes)"
            )

            let dom = try await Chromium.run(chromium, ["--dump-dom", url], in: directory)
            #expect(!dom.timedOut && dom.status == 0)
            #expect(dom.stdout.components(separatedBy: "<svg ").count - 1 == 3)
            for id in ["chart-signins", "chart-failures", "chart-sessions-ended", "table-requested", "table-signins"] {
                #expect(dom.stdout.contains("id=\"\(id)\""), "\(id) rendered")
            }
            #expect(!dom.stdout.contains("<script"))

            let printed = try await Chromium.run(
                chromium,
                ["--print-to-pdf=\(pdf.path)", "--no-pdf-header-footer", url],
                in: directory
            )
            #expect(!printed.timedOut && printed.status == 0)
            let document = try Data(contentsOf: pdf)
            print("EvidencePageTests: PDF at \(pdf.path) (\(document.count) bytes)")
            #expect(document.starts(with: Array("%PDF-".utf8)))
            #expect(document.count > 20_000)
            let pages = Self.count("/MediaBox [0 0 594.9", in: String(decoding: document, as: UTF8.self))
            #expect(pages >= 3, "printed on several A4 pages (Letter would be 612 wide)")
            for entry in try FileManager.default.contentsOfDirectory(atPath: directory.path)
            where entry.hasPrefix("profile-") {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(entry))
            }
        }

        // MARK: Fixtures

        /// A timestamp from ISO 8601 text.
        static func at(_ text: String) throws -> Timestamp { try #require(Timestamp(iso8601: text)) }

        /// A page over `days` days from 2026-10-24: four providers (one hostile) with a gap day, five failure
        /// reasons (one hostile), and session ends of every cause.
        static func page(
            days: Int = 30,
            requested: Bool = false,
            verdict: EvidencePage.Verdict? = nil,
            checkpoint: EvidencePage.Checkpoint? = nil
        ) throws -> EvidencePage {
            let since = try Self.at("2026-10-24")
            let until = since.adding(seconds: Int64(days) * 86_400)
            var rows: [Report.Row] = []
            for day in 0..<days where days == 1 || day % 10 != 9 {
                let label = since.adding(seconds: Int64(day) * 86_400).dayString
                for (index, provider) in Self.providers.enumerated() {
                    let succeeded = Int64((day * 7 + index * 13) % 37 + 3 * (index + 1))
                    rows.append(Report.Row(keys: [label, provider], values: [succeeded, Int64((day + index) % 5)]))
                }
            }
            rows.sort { $0.keys.lexicographicallyPrecedes($1.keys) }
            let signins = Report(
                kind: .signins,
                since: since,
                until: until,
                dimensions: [.day, .provider],
                rows: rows,
                total: [rows.reduce(0) { $0 + $1.values[0] }, rows.reduce(0) { $0 + $1.values[1] }]
            )
            let reasons: [(String, Int64)] = [
                ("audience_mismatch", 23), (Self.hostileReason, 5), ("expired_nonce", 97), ("invalid_token", 412),
                ("rate_limited", 1_234),
            ]
            let failures = Report(
                kind: .failures,
                since: since,
                until: until,
                dimensions: [.reason],
                rows: reasons.sorted { $0.0 < $1.0 }.map { Report.Row(keys: [$0.0], values: [$0.1]) },
                total: [reasons.reduce(0) { $0 + $1.1 }]
            )
            let sessionRows = [
                Report.Row(keys: ["apple"], values: [1_000_000, 812_004, 90_210, 1_402, 17, 380, 96_000]),
                Report.Row(keys: ["google"], values: [234_567, 190_022, 30_117, 322, 4, 61, 14_100]),
            ]
            let sessions = Report(
                kind: .sessions,
                since: since,
                until: until,
                dimensions: [.provider],
                rows: sessionRows,
                total: (0..<7).map { column in sessionRows.reduce(0) { $0 + $1.values[column] } }
            )
            return EvidencePage(
                title: "authlog evidence: example.com",
                generatedAt: until.adding(seconds: 3_600),
                since: since,
                until: until,
                signinsByDayAndProvider: signins,
                failuresByReason: failures,
                sessionsByProvider: sessions,
                requested: requested ? failures : nil,
                verdict: verdict,
                checkpoint: checkpoint
            )
        }

        // MARK: Reading the markup

        /// The `<svg>` element with `id`.
        static func chart(_ id: String, in html: String) throws -> String {
            try Self.element("<svg id=\"\(id)\"", until: "</svg>", in: html)
        }

        /// The text from `start` through the first `end` after it.
        static func element(_ start: String, until end: String, in html: String) throws -> String {
            let open = try #require(html.range(of: start))
            let close = try #require(html.range(of: end, range: open.upperBound..<html.endIndex))
            return String(html[open.lowerBound..<close.upperBound])
        }

        /// How often `needle` occurs in `text`.
        static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

        /// Every tag of `html` (data never opens one: its `<` are escaped).
        static func tags(in html: String) -> [String] {
            let regex = try? NSRegularExpression(pattern: "<[a-zA-Z][^>]*>")
            let range = NSRange(html.startIndex..., in: html)
            return (regex?.matches(in: html, range: range) ?? []).compactMap { match in
                Range(match.range, in: html).map { String(html[$0]) }
            }
        }

        /// The `width`s of the `<rect class="bar …">` elements of a chart.
        static func widths(in chart: String) -> [Double] {
            chart.components(separatedBy: "<rect class=\"bar").dropFirst().compactMap { rect in
                guard let start = rect.range(of: "width=\"") else { return nil }
                return Double(rect[start.upperBound...].prefix { $0 != "\"" })
            }
        }
    }
}

/// The facts of a PNG file a test needs: its size from the IHDR chunk and how many bytes its pixels
/// compress to (a blank page compresses to almost nothing).
private struct PNGSummary {
    var width: Int
    var height: Int
    var compressedPixelBytes: Int

    init?(_ data: Data) {
        let bytes = [UInt8](data)
        guard bytes.count > 33, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        func integer(at offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        guard String(decoding: bytes[12..<16], as: UTF8.self) == "IHDR" else { return nil }
        self.width = integer(at: 16)
        self.height = integer(at: 20)
        var offset = 8
        var idat = 0
        while offset + 8 <= bytes.count {
            let length = integer(at: offset)
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == "IDAT" { idat += length }
            offset += 12 + length
        }
        self.compressedPixelBytes = idat
    }
}

/// Headless Chromium, run with a time limit so a test can never hang.
private enum Chromium {
    /// What a run left behind.
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var timedOut: Bool
    }

    /// The path of `chromium` on PATH, if any.
    static func find() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/chromium"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs Chromium headless with `arguments` and its own profile in `directory`, killing it after `limit`.
    static func run(
        _ executable: String,
        _ arguments: [String],
        in directory: URL,
        limit: Duration = .seconds(60)
    ) async throws -> Run {
        let id = UUID().uuidString
        let output = directory.appendingPathComponent("chromium-\(id).out")
        let errors = directory.appendingPathComponent("chromium-\(id).err")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
                "--user-data-dir=\(directory.appendingPathComponent("profile-\(id)").path)",
            ] + arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let deadline = ContinuousClock.now + limit
        var timedOut = false
        while process.isRunning {
            if ContinuousClock.now > deadline {
                timedOut = true
                process.terminate()
                try await Task.sleep(for: .seconds(3))
                #if canImport(Glibc)
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                #endif
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        if !timedOut { process.waitUntilExit() }
        return Run(
            status: timedOut ? -1 : process.terminationStatus,
            stdout: (try? String(contentsOf: output, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errors, encoding: .utf8)) ?? "",
            timedOut: timedOut
        )
    }
}
