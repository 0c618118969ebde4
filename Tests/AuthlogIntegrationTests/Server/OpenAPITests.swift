import AuthlogServer
import AuthlogTesting
import Foundation
import Testing

/// The live server answers every route `docs/openapi.yaml` documents with something other than "no such
/// route". (That the documented and the registered routes are the same list is AuthlogServerTests'.)
@Suite(.enabled(if: TestDatabase.isAvailable))
struct OpenAPITests {
    @Test func everyDocumentedRouteIsAnsweredByTheLiveServer() async throws {
        try await ServerHarness.run { harness in
            let documented = try OpenAPIRoutes.documented()
            #expect(documented.count >= 9)
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
