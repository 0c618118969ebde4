import AuthlogPostgres
import AuthlogStore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress display on standard error for long runs (`verify`, `rebuild`, `export`, the HTML
/// report's verification): position, rate and, when the end is known, the estimated time left. It is shown
/// only when standard error is a terminal; otherwise nothing extra is printed. At most four updates a second.
///
/// `@unchecked Sendable`: the mutable state below is only touched while `lock` is held; the callbacks come
/// from the connection's thread while the command waits.
final class ProgressLine: @unchecked Sendable {
    private let label: String
    private let total: Int64?
    private let isTerminal: Bool
    private let lock = NSLock()
    private var start: (time: ContinuousClock.Instant, position: Int64)?
    private var lastShown = ContinuousClock.now
    private var shownAnything = false

    /// A progress line for a run over the whole sealed log: its total is the log's head, read now.
    static func overLog(label: String, on connection: Connection) async throws -> ProgressLine {
        let head = try await reportingStoreErrors { try await EventReader().head(on: connection).size }
        return ProgressLine(label: label, total: head)
    }

    /// `total` is the position the run ends at (the log's head), when known.
    init(label: String, total: Int64? = nil) {
        self.label = label
        self.total = total
        self.isTerminal = isatty(STDERR_FILENO) == 1
    }

    /// Reports that the run reached `position`.
    func update(_ position: Int64) {
        guard self.isTerminal else { return }
        let now = ContinuousClock.now
        let line: String? = self.lock.withLock {
            guard let start = self.start else {
                self.start = (now, position)
                return nil
            }
            guard now - self.lastShown >= .milliseconds(250) else { return nil }
            self.lastShown = now
            self.shownAnything = true
            return Self.text(
                label: self.label,
                position: position,
                total: self.total,
                done: position - start.position,
                seconds: (now - start.time).inSeconds
            )
        }
        if let line { FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8)) }
    }

    /// Clears the line.
    func finish() {
        guard self.isTerminal, self.lock.withLock({ self.shownAnything }) else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// `verified 120000 of 10000000 events, 41000 events/s, about 4 min left`.
    static func text(label: String, position: Int64, total: Int64?, done: Int64, seconds: Double) -> String {
        var text = "\(label) \(position)"
        if let total { text += " of \(total)" }
        text += " events"
        guard seconds > 0, done > 0 else { return text }
        let rate = Double(done) / seconds
        text += ", \(Int(rate.rounded())) events/s"
        if let total, total > position {
            text += ", about \(Self.duration(Double(total - position) / rate)) left"
        }
        return text
    }

    /// `45 s`, `4 min`, `2 h 5 min`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds < 1e7 else { return "a long time" }
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\((whole + 59) / 60) min" }
        return "\(whole / 3600) h \((whole % 3600 + 59) / 60) min"
    }
}

extension Duration {
    /// The duration in seconds.
    fileprivate var inSeconds: Double {
        Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18
    }
}
