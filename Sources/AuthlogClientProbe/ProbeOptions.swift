import Foundation

/// The probe's command line.
struct ProbeOptions {
    static let usage = """
        usage: AuthlogClientProbe --base-url URL --token-file PATH --path /v1/me/sessions [--rounds N] \
        [--concurrency N] [--pause-ms N] [--idle-every N --idle-ms N] [--no-refresh-ahead] [--without-lock]
        """

    /// authlog's base URL.
    var baseURL: URL
    /// The shared token file.
    var tokenFile: URL
    /// The authorized route requested.
    var path: String
    /// Rounds of concurrent requests.
    var rounds = 200
    /// Requests per round.
    var concurrency = 4
    /// The pause after each round.
    var pause: Duration = .milliseconds(100)
    /// Every this many rounds the probe goes idle, like an extension the system suspended (0: never).
    var idleEvery = 0
    /// How long it stays idle.
    var idle: Duration = .zero
    /// Whether the client refreshes before expiry (a suspended extension does not).
    var refreshAhead = true
    /// Whether the store's refresh lock is used: without it, to show what the lock prevents.
    var lock = true

    /// What went wrong with the arguments.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses `arguments`.
    init(_ arguments: ArraySlice<String>) throws {
        var given: [String: String] = [:]
        var flags: Set<String> = []
        var rest = arguments[...]
        while let name = rest.popFirst() {
            if name == "--no-refresh-ahead" || name == "--without-lock" {
                flags.insert(name)
            } else if let value = rest.popFirst() {
                given[name] = value
            } else {
                throw Failure(description: "\(name) needs a value")
            }
        }
        guard let base = given["--base-url"].flatMap(URL.init(string:)), let file = given["--token-file"],
            let path = given["--path"]
        else { throw Failure(description: "--base-url, --token-file and --path are required") }
        self.baseURL = base
        self.tokenFile = URL(fileURLWithPath: file)
        self.path = path
        self.rounds = try Self.number(given["--rounds"], default: self.rounds)
        self.concurrency = try Self.number(given["--concurrency"], default: self.concurrency)
        self.pause = .milliseconds(try Self.number(given["--pause-ms"], default: 100))
        self.idleEvery = try Self.number(given["--idle-every"], default: 0)
        self.idle = .milliseconds(try Self.number(given["--idle-ms"], default: 0))
        self.refreshAhead = !flags.contains("--no-refresh-ahead")
        self.lock = !flags.contains("--without-lock")
    }

    private static func number(_ text: String?, default value: Int) throws -> Int {
        guard let text else { return value }
        guard let number = Int(text), (0...100_000).contains(number) else {
            throw Failure(description: "\(text) is not a count from 0 to 100000")
        }
        return number
    }
}
