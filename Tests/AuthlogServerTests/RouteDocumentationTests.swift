import AuthlogCrypto
import AuthlogPostgres
import AuthlogServer
import AuthlogTesting
import Testing

/// `docs/openapi.yaml` lists exactly the routes the server registers. Building the router opens no
/// connection, so this needs no database.
@Suite struct RouteDocumentationTests {
    @Test func everyRegisteredRouteIsDocumentedAndViceVersa() throws {
        var configuration = ServerConfiguration()
        configuration.development = true
        let components = try ServerComponents(
            configuration: configuration,
            pool: ConnectionPool(conninfo: "host=/nonexistent dbname=never-opened"),
            accessTokenKey: try PrivateKey.generate(for: .es256),
            fetcher: NoNetwork()
        )
        let registered = Set(try buildRouter(components: components).routes.map(\.description))
        let documented = try OpenAPIRoutes.documented()
        #expect(documented.count >= 9)
        #expect(registered.subtracting(documented).isEmpty, "registered but not in docs/openapi.yaml")
        #expect(documented.subtracting(registered).isEmpty, "in docs/openapi.yaml but not registered")
        let accountRoutes = Set(try AccountRouter().routes.map(\.description))
        #expect(accountRoutes.contains("POST /v1/signin/{provider}"))
        #expect(accountRoutes.isSubset(of: registered))
    }
}
