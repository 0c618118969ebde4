import AuthlogCore
import AuthlogTesting
import Foundation

/// What the export tests send and store: a read with an API key, and a failed sign-in to export.
enum ExportRequests {
    /// `GET path` from the app's proxy, with `key` as the bearer when given.
    static func get(_ path: String, key: String?, on server: ServerHarness) async throws -> HTTPTestClient.Answer {
        try await server.client.send(
            "GET",
            path,
            headers: ServerHarness.appHeaders + (key.map { [("Authorization", "Bearer \($0)")] } ?? [])
        )
    }

    /// A `signin.failed` (reason `expired`) of `provider`, naming `user` when given.
    static func failedSignin(provider: String, user: UUID?) -> EventEnvelope {
        EventEnvelope(
            stream: StreamName(category: "signin", id: provider),
            type: .signinFailed,
            outcome: .failure,
            reason: "expired",
            provider: provider,
            userID: user,
            data: .members(["reason": .string("expired")])
        )
    }
}
