import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// `docs/openapi.yaml` lists exactly the routes the server registers.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct OpenAPITests {
    /// `METHOD /path` for every operation under `paths:` (two-space path keys, four-space methods).
    static func documentedRoutes() throws -> Set<String> {
        let file = RepositoryFiles.url("docs/openapi.yaml")
        let text = try String(contentsOf: file, encoding: .utf8)
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

    @Test func everyRegisteredRouteIsDocumentedAndViceVersa() async throws {
        try await ServerHarness.run { harness in
            let registered = Set(harness.routes.map(\.description))
            let documented = try Self.documentedRoutes()
            #expect(documented.count >= 9)
            #expect(registered.subtracting(documented).isEmpty, "registered but not in docs/openapi.yaml")
            #expect(documented.subtracting(registered).isEmpty, "in docs/openapi.yaml but not registered")
            // And the live server answers each documented route with something other than "no such route".
            for route in documented {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let answer = try await harness.client.send(
                    parts[0],
                    parts[1].replacingOccurrences(of: "{provider}", with: "dev")
                        .replacingOccurrences(of: "{tile_path}", with: "0/000")
                )
                #expect(answer.string("error") != "not_found", "\(route)")
                #expect(answer.header("X-Request-Id") != nil, "\(route)")
            }
            let unknown = try await harness.client.send("GET", "/v1/nothing-here")
            #expect(unknown.status == 404)
            #expect(unknown.string("error") == "not_found")
        }
    }
}
