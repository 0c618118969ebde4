import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress counter on standard error, shown only when standard error is a terminal.
final class ProgressLine: Sendable {
    private let label: String
    private let isTerminal: Bool

    init(label: String) {
        self.label = label
        self.isTerminal = isatty(STDERR_FILENO) == 1
    }

    func update(_ position: Int64) {
        guard self.isTerminal else { return }
        FileHandle.standardError.write(Data("\r\(self.label) \(position) events".utf8))
    }

    func finish() {
        guard self.isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
