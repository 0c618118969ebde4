/// A user agent's family without its versions: the browser or app and the operating system (`Chrome on
/// Windows`, `ExampleApp on iOS`), so that an update of either is not a new device. It stands for the device
/// when the client sends no device id (a browser, an app without AuthlogClient).
public enum UserAgentFamily {
    /// The longest user agent read; the rest is ignored.
    static let longestRead = 512

    /// The family of `userAgent`; `unknown` when there is none.
    public static func of(_ userAgent: String?) -> String {
        guard let userAgent, !userAgent.isEmpty else { return "unknown" }
        let text = String(decoding: userAgent.utf8.prefix(Self.longestRead), as: UTF8.self)
        let products = Self.productNames(text)
        let client =
            Self.browsers.first { products.contains($0.token) }.map(\.name)
            ?? products.first { $0 != "Mozilla" } ?? products.first ?? "unknown"
        let family = Self.systems.first(where: { text.contains($0.marker) }).map { "\(client) on \($0.name)" } ?? client
        // A product name is the client's own text: control characters escaped, as every envelope value's are.
        return EnvelopeText.normalized(family, limit: 96) ?? "unknown"
    }

    /// The product names of a user agent (`Chrome` of `Chrome/120.0`), outside its comments.
    private static func productNames(_ text: String) -> [String] {
        var names: [String] = []
        var depth = 0
        for word in text.split(separator: " ") {
            if depth == 0, !word.hasPrefix("("), let name = word.split(separator: "/").first, !name.isEmpty {
                names.append(String(name.prefix(32)))
            }
            depth += word.filter { $0 == "(" }.count - word.filter { $0 == ")" }.count
            depth = max(depth, 0)
        }
        return names
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
