import AuthlogClient
import AuthlogCore
import AuthlogTesting
import Foundation
import Testing

extension Servers {
    /// docs/ios.md's promise for an app and its extensions: two processes sharing one token store never sign each
    /// other out, over 200 rounds of 4 concurrent authorized requests in each. The server runs its default
    /// configuration but for a 3-second access token (and the account routes' per-address limit, raised), so that tokens expire all through the run. One process
    /// works steadily and refreshes ahead of expiry; the other works in bursts and goes idle between them like a
    /// suspended extension, waking with a pair the first one has rotated twice since. Without the refresh lock
    /// (and the store read under it) the waking process presents a spent refresh token, authlog records
    /// `token.reuse_detected` and both are signed out (`AUTHLOG_CLIENT_PROBE_WITHOUT_LOCK=1` shows it).
    @Suite(.enabled(if: TestDatabase.isAvailable))
    struct ClientTwoProcessRefreshTests {
        @Test func twoProcessesSharingAFileStoreNeverSignEachOtherOut() async throws {
            // The two processes send some 200 requests a second to /v1/me/sessions from one address: a load on the
            // refresh lock, not a person; the account routes' per-address limit (20/s) is raised for it alone.
            let extra: [String: JSONValue] = [
                "access_token": .members(["ttl_seconds": .number("3")]),
                "rate_limits": .members([
                    "per_address": .members([
                        "account": .members(["per_second": .number("2000"), "burst": .number("4000")])
                    ])
                ]),
            ]
            try await ClientTestServer.run(extra: extra) { server in
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("two-processes-\(UUID())")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                let file = folder.appendingPathComponent("tokens.json")
                let signedIn = try await AuthlogClient(
                    baseURL: server.baseURL,
                    tokenStore: FileTokenStore(url: file),
                    configuration: .init(refreshBeforeExpiry: nil)
                ).signIn(with: .dev(subject: "app-and-extension"))
                let shared = [
                    "--base-url", server.baseURL.absoluteString, "--token-file", file.path, "--path", "/v1/me/sessions",
                    "--rounds", "200", "--concurrency", "4",
                ]
                async let app = ClientProbe.run(shared + ["--pause-ms", "100"])
                async let extensionProcess = ClientProbe.run(
                    shared + ["--pause-ms", "20", "--idle-every", "40", "--idle-ms", "4000", "--no-refresh-ahead"]
                )
                let reports = try await [app, extensionProcess]
                let database = server.database
                let reuses = try await database.scalar(
                    "SELECT count(*) FROM authlog.event_records WHERE type = 'token.reuse_detected'"
                )
                let endings = try await database.scalar(
                    """
                    SELECT count(*) FROM authlog.event_records
                    WHERE type IN ('session.revoked', 'session.logged_out', 'session.expired')
                    """
                )
                let sessions = try await database.scalar("SELECT count(*) FROM authlog.sessions")
                let active = try await database.scalar(
                    """
                    SELECT count(*) FROM authlog.sessions
                    WHERE session_id = \(signedIn.tokens.sessionID)::uuid AND state = 'active'
                    """
                )
                let refreshed = try await database.scalar(
                    "SELECT count(*) FROM authlog.event_records WHERE type = 'token.refreshed'"
                )
                let summary =
                    "two-process refresh: token.reuse_detected=\(reuses) session endings=\(endings) "
                    + "sessions=\(sessions) active=\(active) token.refreshed=\(refreshed); "
                    + reports.map { $0.output.stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
                    .joined(separator: "; ")
                print(summary)
                for report in reports {
                    #expect(report.output.status == 0, "\(summary)")
                    #expect(report.counts["succeeded"] == 800, "\(summary)")
                    #expect(report.counts["sign_outs"] == 0, "\(summary)")
                }
                #expect(reuses == 0, "\(summary)")
                #expect(endings == 0, "\(summary)")
                #expect(sessions == 1, "one session: \(summary)")
                #expect(active == 1, "\(summary)")
                // The tokens did expire during the run: the session was refreshed again and again.
                #expect(refreshed >= 5, "\(summary)")
                let stored = try #require(try await FileTokenStore(url: file).load())
                #expect(stored.sessionID == signedIn.tokens.sessionID)
            }
        }
    }
}
