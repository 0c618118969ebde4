/// The URL a DPoP proof's `htu` names, compared as RFC 9449 §4.3 asks: without its query and fragment, with
/// the scheme and host in lower case and a default port left out (RFC 3986 §6.2.2, §6.2.3); the path is
/// compared exactly.
public struct DPoPTarget: Sendable, Equatable, CustomStringConvertible {
    /// `scheme://host[:port]/path`, normalized.
    public let normalized: String

    /// Normalizes `url`; nil when it is not an absolute `http` or `https` URL with a host (or names a user).
    public init?(_ url: String) {
        let text = Substring(url)
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        var rest = text[separator.upperBound...]
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        let pathStart = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<pathStart].lowercased()
        let path = rest[pathStart...].isEmpty ? "/" : String(rest[pathStart...])
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        let defaultPort = scheme == "https" ? ":443" : ":80"
        // An IPv6 literal has colons of its own; the port is after its closing bracket.
        let hostEnd = authority.lastIndex(of: "]") ?? authority.startIndex
        if authority.hasSuffix(defaultPort), authority[hostEnd...].contains(":") {
            authority.removeLast(defaultPort.count)
        }
        guard !authority.isEmpty, authority.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        self.normalized = scheme + "://" + authority + path
    }

    public var description: String { self.normalized }
}
