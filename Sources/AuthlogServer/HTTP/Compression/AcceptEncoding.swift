/// Whether a request's `Accept-Encoding` (RFC 9110 §12.5.3) takes gzip: `gzip` (or `x-gzip`) listed with a
/// weight above 0, or `*` above 0 with gzip not refused by name. Anything unreadable counts as not accepted, so
/// the answer stays identity, which every client takes.
enum AcceptEncoding {
    /// The longest header read; a longer one is not accepted (no client needs more than a few codings).
    static let maximumLength = 512

    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header, header.utf8.count <= Self.maximumLength else { return false }
        var named: Bool?
        var wildcard = false
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let name = parts.first?.trimmingSpaces.lowercased() else { continue }
            let weight = Self.weight(parts.dropFirst())
            if name == "gzip" || name == "x-gzip" {
                named = (named ?? false) || weight > 0
            } else if name == "*" {
                wildcard = weight > 0
            }
        }
        return named ?? wildcard
    }

    /// The `q` parameter's value (1 when absent; 0 when unreadable, which refuses).
    private static func weight(_ parameters: ArraySlice<Substring>) -> Double {
        for parameter in parameters {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "q" else { continue }
            let text = pair[1].trimmingSpaces
            guard text.utf8.count <= 5, let value = Double(text), (0...1).contains(value) else { return 0 }
            return value
        }
        return 1
    }
}

extension Substring {
    /// Without the spaces and tabs around it.
    fileprivate var trimmingSpaces: String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
