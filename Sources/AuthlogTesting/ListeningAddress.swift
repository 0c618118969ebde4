public import Foundation

/// Where a started server listens, read from its log: `authlog serve` and `authlog witness` log
/// `address=http://127.0.0.1:<port>` once they listen (they are started on port 0).
public enum ListeningAddress {
    /// The port `process` logged into `logFile`, polled every 20 ms for up to `timeout`; nil when it exited or
    /// said nothing in time.
    public static func port(
        loggedIn logFile: String,
        by process: Process,
        within timeout: Duration
    ) async throws
        -> Int?
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, process.isRunning {
            let text = String(decoding: FileManager.default.contents(atPath: logFile) ?? Data(), as: UTF8.self)
            if let range = text.range(of: "address=http://127.0.0.1:"),
                let port = Int(text[range.upperBound...].prefix { $0.isNumber })
            {
                return port
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}
