import AuthlogCore
import Foundation
import HTTPTypes
import Testing

/// The HTTP shape of the account routes: statuses, headers, error bodies and limits, over the in-memory
/// stores. The rules behind them are AuthlogAccountsTests'; what PostgreSQL adds is AuthlogIntegrationTests'.
@Suite struct AccountRouteShapeTests {
    @Test func aSignInAnswersTheTokenPairUncachedAndNamesWhatItAppended() async throws {
        let routes = try AccountRouter()
        try await routes.run { client in
            let answer = try await client.send(.post, "/v1/signin/dev", body: #"{"subject": "alice"}"#)
            #expect(answer.status == 200)
            #expect(answer.headers[.contentType] == "application/json")
            #expect(answer.headers[.cacheControl] == "no-store")
            #expect(answer.headers[HTTPField.Name("X-Request-Id")!]?.isEmpty == false)
            #expect(answer.string("token_type") == "Bearer")
            #expect(answer.string("refresh_token")?.hasPrefix("alr_") == true)
            #expect(answer.json["is_new_user"] == .bool(true))
            for member in ["access_token", "access_token_expires_at", "refresh_token_expires_at", "session_id"] {
                #expect(answer.string(member) != nil, "\(member)")
            }
            let named = answer.json["event_ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let appended = routes.stores.events.events.map { $0.eventID.uuidString.lowercased() }
            #expect(!named.isEmpty)
            #expect(named == appended)
        }
    }

    @Test func aBodyThatIsNotJSONIs400WithAJSONError() async throws {
        let routes = try AccountRouter()
        try await routes.run { client in
            let answer = try await client.send(.post, "/v1/signin/dev", body: "{")
            #expect(answer.status == 400)
            #expect(answer.headers[.contentType] == "application/json")
            #expect(answer.string("error") == "invalid_request")
            #expect(answer.string("error_description")?.isEmpty == false)
        }
    }

    @Test func aBodyOverTheLimitIs413() async throws {
        let routes = try AccountRouter { $0.requestBodyLimit = 64 }
        try await routes.run { client in
            let subject = String(repeating: "a", count: 100)
            let answer = try await client.send(.post, "/v1/signin/dev", body: #"{"subject": "\#(subject)"}"#)
            #expect(answer.status == 413)
            #expect(answer.string("error") == "request_too_large")
            #expect(try await client.signIn("short")["user_id"] != nil)
        }
    }

    @Test func aRouteNamesTheMediaTypeItTakes() async throws {
        let routes = try AccountRouter()
        try await routes.run { client in
            let credentials = AccountRouter.introspectionCredentials
            let introspection = try await client.send(
                .post,
                "/oauth/introspect",
                body: #"{"token": "x"}"#,
                headers: [.authorization: "Basic \(credentials)"]
            )
            #expect(introspection.status == 415)
            #expect(introspection.string("error") == "unsupported_media_type")
            #expect(introspection.string("error_description") == "Send the body as application/x-www-form-urlencoded.")
            let signin = try await client.send(
                .post,
                "/v1/signin/dev",
                body: "subject=x",
                contentType: "application/x-www-form-urlencoded"
            )
            #expect(signin.status == 415)
            #expect(signin.string("error_description") == "Send the body as application/json.")
        }
    }

    /// A refresh that names no token of authlog's is answered, and left to the HTTP layer's aggregated count by
    /// address (AccessTokenRefusalTests holds the count): the service records nothing of it alone.
    @Test func aRefreshRefusedForItsBodyIsAnsweredWithoutAnEventOfItsOwn() async throws {
        let routes = try AccountRouter()
        try await routes.run { client in
            let missing = try await client.send(.post, "/v1/token/refresh", body: #"{"token": "x"}"#)
            #expect(missing.status == 400)
            #expect(missing.string("error") == "invalid_request")
            let notJSON = try await client.send(.post, "/v1/token/refresh", body: "{")
            #expect(notJSON.status == 400)
        }
        #expect(routes.stores.events.events.isEmpty)
    }

    @Test func anUnknownRefreshTokenIs401InvalidGrantWithoutAnEventOfItsOwn() async throws {
        let routes = try AccountRouter()
        try await routes.run { client in
            let answer = try await client.send(.post, "/v1/token/refresh", body: #"{"refresh_token": "alr_nothing"}"#)
            #expect(answer.status == 401)
            #expect(answer.string("error") == "invalid_grant")
            #expect(answer.headers[.cacheControl] == "no-store")
        }
        #expect(routes.stores.events.events.isEmpty)
    }

    @Test func aRefreshAnswersANewPairForTheSameSession() async throws {
        let routes = try AccountRouter()
        try await routes.run { client in
            let signin = try await client.signIn("alice")
            let refresh = signin["refresh_token"]?.stringValue ?? ""
            let answer = try await client.send(.post, "/v1/token/refresh", body: #"{"refresh_token": "\#(refresh)"}"#)
            #expect(answer.status == 200)
            #expect(answer.headers[.cacheControl] == "no-store")
            #expect(answer.string("session_id") == signin["session_id"]?.stringValue)
            #expect(answer.string("refresh_token") != refresh)
            #expect(answer.json["is_new_user"] == .bool(false))
        }
    }

    @Test func logoutWithoutABearerIs401WithAChallenge() async throws {
        let routes = try AccountRouter()
        try await routes.run { client in
            let answer = try await client.send(.post, "/v1/logout")
            #expect(answer.status == 401)
            #expect(answer.string("error") == "invalid_token")
            #expect(answer.headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#)
        }
    }

    @Test func logoutIs204AndTheSessionsAccessTokenStopsWorking() async throws {
        let routes = try AccountRouter()
        try await routes.run { client in
            let signin = try await client.signIn("alice")
            let bearer = RouterClient.bearer(signin["access_token"]?.stringValue)
            let logout = try await client.send(.post, "/v1/logout", headers: bearer)
            #expect(logout.status == 204)
            #expect(logout.body.isEmpty)
            let after = try await client.send(
                .post,
                "/v1/me/credential-state",
                body: #"{"provider": "dev", "state": "authorized"}"#,
                headers: bearer
            )
            #expect(after.status == 401)
            #expect(after.string("error") == "invalid_token")
        }
    }

    @Test func accountDeletionIs202WithEachProvidersRevocation() async throws {
        let routes = try AccountRouter()
        try await routes.run { client in
            let signin = try await client.signIn("alice")
            let answer = try await client.send(
                .delete,
                "/v1/me",
                headers: RouterClient.bearer(signin["access_token"]?.stringValue)
            )
            #expect(answer.status == 202)
            #expect(answer.string("status") == "deleted")
            #expect(answer.json["provider_revocations"] == .members(["dev": .string("none")]))
        }
    }

    @Test func introspectionTakesOnlyItsOwnClients() async throws {
        let routes = try AccountRouter()
        try await routes.run { client in
            let signin = try await client.signIn("alice")
            let form = "token=\(signin["access_token"]?.stringValue ?? "")"
            let anonymous = try await client.send(
                .post,
                "/oauth/introspect",
                body: form,
                contentType: "application/x-www-form-urlencoded"
            )
            #expect(anonymous.status == 401)
            #expect(anonymous.headers[.wwwAuthenticate] == #"Basic realm="authlog""#)
            let credentials = AccountRouter.introspectionCredentials
            let known = try await client.send(
                .post,
                "/oauth/introspect",
                body: form,
                contentType: "application/x-www-form-urlencoded",
                headers: [.authorization: "Basic \(credentials)"]
            )
            #expect(known.status == 200)
            #expect(known.json["active"] == .bool(true))
            #expect(known.string("sub") == signin["user_id"]?.stringValue)
        }
    }
}
