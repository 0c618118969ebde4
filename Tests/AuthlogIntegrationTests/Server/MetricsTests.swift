import AuthlogCore
import AuthlogTesting
import Testing

/// `/metrics` counts what happened, including key fetches of providers found by discovery.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct MetricsTests {
    @Test func metricsCountRequestsSigninsBatchesAndKeyFetches() async throws {
        try await ServerHarness.run { harness in
            let body = try ProofMaker(providers: harness.providers).validBody(for: "gitlab")
            #expect(try await harness.post("/v1/signin/gitlab", body).status == 200)
            #expect(try await harness.post("/v1/signin/google", .members(["id_token": "x.y.z"])).status == 401)
            let answer = try await harness.client.send("GET", "/metrics")
            #expect(answer.status == 200)
            let text = String(decoding: answer.body, as: UTF8.self)
            #expect(
                text.contains(
                    #"authlog_http_requests_total{method="POST",route="/v1/signin/{provider}",status="200"} 1"#
                )
            )
            #expect(
                text.contains(
                    #"authlog_http_requests_total{method="POST",route="/v1/signin/{provider}",status="401"} 1"#
                )
            )
            #expect(text.contains(#"authlog_signins_total{provider="gitlab",outcome="success"} 1"#))
            #expect(text.contains(#"authlog_signins_total{provider="google",outcome="failure"} 1"#))
            #expect(text.contains(#"authlog_jwks_fetches_total{provider="gitlab"} 1"#))
            #expect(text.contains("authlog_sequencer_batch_events_count 2"))
            #expect(text.contains("authlog_http_request_duration_seconds_count 2"))
        }
    }

    /// Events appended are counted by type: a reused refresh token shows as `token.reuse_detected` (what
    /// deploy/alerts.yml's AuthlogRefreshTokenReuse watches) and its revoked session in the revocations.
    @Test func metricsCountEventsByTypeForTheAlerts() async throws {
        let server = try await ServerHarness.start(adjust: withoutRefreshGrace)
        defer { Task { await server.stop() } }
        let session = try await server.signInDev("carol")
        #expect(try await server.refresh(session.refreshToken).status == 200)
        #expect(try await server.refresh(session.refreshToken).status == 401, "the rotated token comes back")
        let text = String(decoding: try await server.client.send("GET", "/metrics").body, as: UTF8.self)
        #expect(text.contains(#"authlog_events_appended_total{type="token.reuse_detected"} 1"#), "\(text)")
        #expect(text.contains(#"authlog_events_appended_total{type="token.refreshed"} 1"#))
        #expect(text.contains(#"authlog_events_appended_total{type="signin.succeeded"} 1"#))
    }
}
