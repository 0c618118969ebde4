public import Foundation

/// The operations `docs/openapi.yaml` documents, as `METHOD /path`.
public enum OpenAPIRoutes {
    /// `METHOD /path` for every operation under `paths:` (two-space path keys, four-space methods).
    public static func documented() throws -> Set<String> {
        let text = try String(contentsOf: RepositoryFiles.url("docs/openapi.yaml"), encoding: .utf8)
        var routes: Set<String> = []
        var inPaths = false
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") { inPaths = line == "paths:" }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let path {
                let method = line.dropFirst(4).prefix { $0 != ":" }
                if ["get", "post", "put", "patch", "delete"].contains(method) {
                    routes.insert("\(method.uppercased()) \(path)")
                }
            }
        }
        return routes
    }
}
