public import AuthlogCore
public import AuthlogStore
import AuthlogTransparency
import Foundation

/// The page `authlog report --format html` writes for auditors: one self-contained HTML file with the period,
/// charts of sign-ins, failures and session ends, the tables of every report given, the `verify` verdict and
/// the latest signed checkpoint with how to check it.
///
/// The page loads nothing (no scripts, fonts, images or style sheets from anywhere, and a Content Security
/// Policy that forbids them), escapes every text that comes from data, and prints to A4 with charts and
/// table rows kept whole.
public struct EvidencePage: Sendable {
    /// The outcome of `authlog verify` shown on the page.
    public struct Verdict: Sendable {
        /// Whether the log verified intact.
        public var passed: Bool
        /// What `verify` printed, such as `log intact: 1204 events, root …, 12 checkpoints match`.
        public var summary: String

        /// Creates a verdict.
        /// - Parameters:
        ///   - passed: Whether the log verified intact.
        ///   - summary: What `verify` printed.
        public init(passed: Bool, summary: String) {
            self.passed = passed
            self.summary = summary
        }
    }

    /// The latest signed checkpoint shown on the page, for auditors to keep and check later.
    public struct Checkpoint: Sendable {
        /// The signed note, exactly as stored: body, empty line, signature lines.
        public var note: String
        /// The verifier key line (`name+hash+key`) to check the signature with; nil when not known.
        public var verifierKey: String?
        /// The number of events the checkpoint commits to.
        public var treeSize: Int64

        /// Creates a checkpoint.
        /// - Parameters:
        ///   - note: The signed note, exactly as stored.
        ///   - verifierKey: The verifier key line, when known.
        ///   - treeSize: The number of events the checkpoint commits to.
        public init(note: String, verifierKey: String?, treeSize: Int64) {
            self.note = note
            self.verifierKey = verifierKey
            self.treeSize = treeSize
        }
    }

    /// The page's heading, such as `authlog evidence: example.com`.
    public var title: String
    /// When the page was made.
    public var generatedAt: Timestamp
    /// The start of the period, inclusive.
    public var since: Timestamp
    /// The end of the period, exclusive.
    public var until: Timestamp
    /// Sign-ins grouped by day and provider (kind `signins`, dimensions `[.day, .provider]`).
    public var signinsByDayAndProvider: Report
    /// Failed sign-ins and refused requests grouped by reason (kind `failures`, dimensions `[.reason]`).
    public var failuresByReason: Report
    /// Sessions grouped by provider (kind `sessions`, dimensions `[.provider]`); its total gives the ends by cause.
    public var sessionsByProvider: Report
    /// The report the user asked for, shown first as a table; nil when none was.
    public var requested: Report?
    /// The `verify` verdict; nil when the log was not checked.
    public var verdict: Verdict?
    /// The latest signed checkpoint; nil when none was signed yet.
    public var checkpoint: Checkpoint?
    /// Each witness's latest stored cosignature of the log's checkpoints (empty without witnesses).
    public var witnesses: [CheckpointCosignatures.Latest]

    /// Creates a page.
    /// - Parameters:
    ///   - title: The page's heading.
    ///   - generatedAt: When the page was made.
    ///   - since: The start of the period, inclusive.
    ///   - until: The end of the period, exclusive.
    ///   - signinsByDayAndProvider: Sign-ins by day and provider.
    ///   - failuresByReason: Failed sign-ins and refused requests by reason.
    ///   - sessionsByProvider: Sessions by provider.
    ///   - requested: The report the user asked for, if any.
    ///   - verdict: The `verify` verdict, if the log was checked.
    ///   - checkpoint: The latest signed checkpoint, if any.
    ///   - witnesses: Each witness's latest cosignature, if any.
    public init(
        title: String,
        generatedAt: Timestamp,
        since: Timestamp,
        until: Timestamp,
        signinsByDayAndProvider: Report,
        failuresByReason: Report,
        sessionsByProvider: Report,
        requested: Report? = nil,
        verdict: Verdict? = nil,
        checkpoint: Checkpoint? = nil,
        witnesses: [CheckpointCosignatures.Latest] = []
    ) {
        self.title = title
        self.generatedAt = generatedAt
        self.since = since
        self.until = until
        self.signinsByDayAndProvider = signinsByDayAndProvider
        self.failuresByReason = failuresByReason
        self.sessionsByProvider = sessionsByProvider
        self.requested = requested
        self.verdict = verdict
        self.checkpoint = checkpoint
        self.witnesses = witnesses
    }

    /// The whole page: an HTML5 document with its style sheet and charts inline.
    public func render() -> String {
        var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html +=
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        html += "<meta name=\"generator\" content=\"authlog\">\n"
        html += "<title>\(SVGMarkup.escape(self.title))</title>\n<style>\n\(Self.styleSheet)</style>\n</head>\n<body>\n"
        html += self.headerSection()
        html += self.noticesSection()
        if let requested = self.requested {
            html += "<section id=\"requested\">\n<h2>Requested report</h2>\n"
            html += self.table(requested, id: "table-requested") + "</section>\n"
        }
        html += self.chartsSection()
        html += self.tablesSection()
        html += self.integritySection()
        html += "<footer>Generated by authlog at \(self.display(self.generatedAt)). This page is self-contained: "
        html += "it loads nothing from the network and runs no scripts.</footer>\n"
        return html + "</body>\n</html>\n"
    }

    /// An instant for people: `2026-11-21 13:06:14 UTC`, with the fraction only when it is not zero.
    func display(_ timestamp: Timestamp) -> String {
        var text = timestamp.description.replacingOccurrences(of: "T", with: " ")
        if text.hasSuffix(".000000Z") { text.removeLast(8) } else if text.hasSuffix("Z") { text.removeLast() }
        return SVGMarkup.escape(text) + " UTC"
    }

    /// A `<time>` element for an instant.
    func time(_ timestamp: Timestamp) -> String {
        "<time datetime=\"\(SVGMarkup.escape(timestamp.description))\">\(self.display(timestamp))</time>"
    }

    /// The page's style: screen and print (A4, black on white, charts and rows kept whole).
    static let styleSheet = """
        @page { size: A4; margin: 14mm 12mm 16mm; }
        * { box-sizing: border-box; }
        html { background: #fff; color: #111; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
        body { margin: 0 auto; max-width: 1040px; padding: 32px 40px 48px;
          font: 14px/1.5 "Liberation Sans", "DejaVu Sans", Arial, Helvetica, sans-serif; }
        h1 { font-size: 26px; margin: 0 0 16px; line-height: 1.2; }
        h2 { font-size: 19px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 2px solid #111;
          break-after: avoid; page-break-after: avoid; }
        h3 { font-size: 15px; margin: 22px 0 8px; break-after: avoid; page-break-after: avoid; }
        p { margin: 6px 0; }
        code, pre { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 12.5px; }
        pre { margin: 8px 0; padding: 10px 12px; border: 1px solid #bbb; background: #f7f7f7;
          white-space: pre-wrap; overflow-wrap: anywhere; break-inside: avoid; }
        .kicker { margin: 0 0 4px; font-size: 12px; letter-spacing: 0.08em; text-transform: uppercase; color: #555; }
        .facts { display: grid; grid-template-columns: max-content 1fr; gap: 6px 20px; margin: 0;
          padding: 14px 16px; border: 1px solid #ccc; background: #fafafa; }
        .facts dt { font-weight: bold; }
        .facts dd { margin: 0; overflow-wrap: anywhere; }
        .muted { color: #555; }
        .badge { display: inline-block; padding: 1px 8px; border: 1.5px solid #111; border-radius: 3px;
          font-size: 12px; font-weight: bold; letter-spacing: 0.05em; }
        .badge.passed { border-color: #17663a; color: #17663a; }
        .badge.failed { border-color: #a50e0e; color: #a50e0e; }
        .stats { display: grid; grid-template-columns: repeat(3, 1fr); gap: 10px; margin: 18px 0 0; }
        .stat { border: 1px solid #ccc; padding: 10px 12px; break-inside: avoid; }
        .stat-value { display: block; font-size: 22px; font-weight: bold; font-variant-numeric: tabular-nums; }
        .stat-label { display: block; font-size: 12px; color: #444; }
        .notice { margin: 16px 0 0; padding: 10px 14px; border: 1px solid #b7791f; border-left-width: 6px;
          background: #fffaf0; break-inside: avoid; }
        figure { margin: 18px 0 26px; break-inside: avoid; page-break-inside: avoid; }
        figcaption { margin-bottom: 8px; }
        figcaption strong { display: block; font-size: 15px; }
        svg.chart { display: block; width: 100%; height: auto; }
        table { width: 100%; border-collapse: collapse; margin: 10px 0 28px; font-size: 13px; }
        table.narrow { width: auto; min-width: 60%; }
        caption { caption-side: top; text-align: left; padding: 0 0 6px; }
        caption strong { font-size: 15px; margin-right: 8px; }
        th, td { padding: 4px 10px; border-bottom: 1px solid #d5d5d5; text-align: left; vertical-align: top; }
        thead th { border-bottom: 2px solid #111; background: #f0f0f0; font-weight: bold; }
        tbody tr:nth-child(even) td { background: #fafafa; }
        tfoot th, tfoot td { border-top: 2px solid #111; border-bottom: none; font-weight: bold; }
        td.key { overflow-wrap: anywhere; }
        .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        thead { display: table-header-group; }
        tfoot { display: table-row-group; }
        tr { break-inside: avoid; page-break-inside: avoid; }
        .verdict { padding: 10px 14px; border: 1px solid #ccc; border-left-width: 6px; break-inside: avoid; }
        .verdict.passed { border-left-color: #17663a; }
        .verdict.failed { border-left-color: #a50e0e; }
        .verdict p { overflow-wrap: anywhere; }
        ol li { margin: 4px 0; }
        footer { margin-top: 40px; padding-top: 10px; border-top: 1px solid #ccc; font-size: 12px; color: #555; }
        @media print {
          body { max-width: none; padding: 0; font-size: 10.5pt; }
          h1 { font-size: 20pt; }
          h2 { font-size: 14pt; }
          table { font-size: 9pt; }
          th, td { padding: 3px 6px; }
          .stats { gap: 6px; }
          .stat-value { font-size: 15pt; }
          .muted, .stat-label, footer, .kicker { color: #333; }
          #integrity { break-before: page; }
        }

        """
}
