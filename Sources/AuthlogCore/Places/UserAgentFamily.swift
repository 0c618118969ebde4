/// A user agent's family without its versions: the browser or app and the operating system (`Chrome on
/// Windows`, `ExampleApp on iOS`), so that an update of either is not a new device. It stands for the device
/// when the client sends no device id (a browser, an app without AuthlogClient).
public enum UserAgentFamily {
    /// The longest user agent read; the rest is ignored.
    static let longestRead = 512

    /// The family of `userAgent`; `unknown` when there is none. Read as UTF-8 bytes: every sign-in with alerts
    /// asks, and comparing `String`s character by character cost 14 µs of a sign-in (`authlog-bench service
    /// --alerts-only`, perf).
    public static func of(_ userAgent: String?) -> String {
        guard let userAgent, !userAgent.isEmpty else { return "unknown" }
        let bytes = Array(userAgent.utf8.prefix(Self.longestRead))
        let products = Self.productNames(bytes)
        let client =
            Self.browsers.first { browser in products.contains { $0.elementsEqual(browser.token.utf8) } }.map(\.name)
            ?? products.first { !$0.elementsEqual("Mozilla".utf8) }.map(Self.name)
            ?? products.first.map(Self.name) ?? "unknown"
        let system = Self.systems.first { Self.contains(bytes, $0.marker.utf8) }
        let family = system.map { "\(client) on \($0.name)" } ?? client
        // A product name is the client's own text: control characters escaped, as every envelope value's are.
        return EnvelopeText.normalized(family, limit: 96) ?? "unknown"
    }

    /// The product names of a user agent (`Chrome` of `Chrome/120.0`), outside its comments.
    private static func productNames(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var names: [ArraySlice<UInt8>] = []
        var depth = 0
        for word in bytes.split(separator: UInt8(ascii: " ")) {
            if depth == 0, word.first != UInt8(ascii: "("),
                let name = word.split(separator: UInt8(ascii: "/")).first,
                !name.isEmpty
            {
                names.append(name)
            }
            for byte in word {
                if byte == UInt8(ascii: "(") {
                    depth += 1
                } else if byte == UInt8(ascii: ")") {
                    depth = max(depth - 1, 0)
                }
            }
        }
        return names
    }

    /// A product name as text, at most 32 characters.
    private static func name(_ bytes: ArraySlice<UInt8>) -> String {
        String(String(decoding: bytes, as: UTF8.self).prefix(32))
    }

    /// Whether `bytes` hold `marker`.
    private static func contains(_ bytes: [UInt8], _ marker: String.UTF8View) -> Bool {
        let needle = Array(marker)
        guard let first = needle.first, needle.count <= bytes.count else { return false }
        var start = 0
        while start + needle.count <= bytes.count {
            if bytes[start] == first && bytes[start..<start + needle.count].elementsEqual(needle) { return true }
            start += 1
        }
        return false
    }

    /// Browsers by the token that names them, most specific first (Edge and Opera also say Chrome, Chrome also
    /// says Safari).
    private static let browsers: [(token: String, name: String)] = [
        ("Edg", "Edge"), ("EdgA", "Edge"), ("EdgiOS", "Edge"), ("OPR", "Opera"), ("SamsungBrowser", "Samsung Internet"),
        ("Firefox", "Firefox"), ("FxiOS", "Firefox"), ("CriOS", "Chrome"), ("Chrome", "Chrome"), ("Safari", "Safari"),
    ]

    /// Operating systems by a marker in the user agent, most specific first.
    private static let systems: [(marker: String, name: String)] = [
        ("iPhone", "iOS"), ("iPad", "iPadOS"), ("iOS", "iOS"), ("Android", "Android"), ("Windows", "Windows"),
        ("Macintosh", "macOS"), ("Mac OS X", "macOS"), ("CrOS", "ChromeOS"), ("Linux", "Linux"),
    ]
}
