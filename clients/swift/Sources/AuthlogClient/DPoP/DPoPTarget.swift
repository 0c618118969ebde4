import Foundation

/// What DPoP needs of a request's URL: its `htu` (RFC 9449 §4.2: the URL without query and fragment) and the origin
/// whose server nonce applies to it. Both are normalized as RFC 9449 §4.3 compares them (RFC 3986 §6.2.2, §6.2.3):
/// scheme and host in lower case, a default port left out, the path as sent.
struct DPoPTarget: Equatable {
    /// `scheme://host[:port]/path`.
    let htu: String
    /// `scheme://host[:port]`.
    let origin: String

    /// The target of `url`, or `nil` when it is not an absolute `http` or `https` URL with a host.
    init?(_ url: URL) {
        let text = Substring(url.absoluteString)
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        var rest = text[separator.upperBound...]
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        let pathStart = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<pathStart].lowercased()
        // User information is never sent in the request line; the server knows the host alone.
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        let defaultPort = scheme == "https" ? ":443" : ":80"
        // An IPv6 literal has colons of its own; the port is after its closing bracket.
        let hostEnd = authority.lastIndex(of: "]") ?? authority.startIndex
        if authority.hasSuffix(defaultPort), authority[hostEnd...].contains(":") {
            authority.removeLast(defaultPort.count)
        }
        guard !authority.isEmpty else { return nil }
        let path = rest[pathStart...].isEmpty ? "/" : String(rest[pathStart...])
        self.origin = scheme + "://" + authority
        self.htu = self.origin + path
    }
}
