import AuthlogAccounts
import AuthlogCore
import AuthlogServer
import Foundation
import HTTPTypes
import Testing

/// The identity lockout as the server wires it: `rate_limits.lockout` and `rate_limits.enabled` become the
/// sign-in service's policy (with their ranges checked), and a locked identity's sign-in over HTTP gets the
/// forged-proof answer. The admin unlock route needs API keys, which live in PostgreSQL:
/// AuthlogIntegrationTests' `IdentityLockoutRouteTests` drives it.
@Suite struct LockoutRouteShapeTests {
    static func rateLimits(_ members: JSONValue) throws -> (inout ServerConfiguration) -> Void {
        let settings = try members.decode(ServerConfiguration.RateLimitSettings.self)
        return { $0.rateLimits = settings }
    }

    @Test func theLockoutSettingsBecomeThePolicyWithTheirDefaults() throws {
        #expect(try AccountRouter().components.dependencies.settings.lockout == LockoutPolicy())
        #expect(
            LockoutPolicy()
                == LockoutPolicy(failures: 10, windowSeconds: 900, firstLockSeconds: 60, maximumLockSeconds: 3_600)
        )
        let configured = try AccountRouter(
            adjust: try Self.rateLimits(
                .members([
                    "lockout": .members([
                        "failures": .number("5"), "window_seconds": .number("300"),
                        "first_lock_seconds": .number("30"), "maximum_lock_seconds": .number("600"),
                    ])
                ])
            )
        )
        #expect(
            configured.components.dependencies.settings.lockout
                == LockoutPolicy(failures: 5, windowSeconds: 300, firstLockSeconds: 30, maximumLockSeconds: 600)
        )
        let off = try AccountRouter(adjust: try Self.rateLimits(.members(["enabled": .bool(false)])))
        #expect(off.components.dependencies.settings.lockout.isEnabled == false)
    }

    @Test func aLockoutSettingOutOfRangeIsRefusedByName() throws {
        let refused: [(JSONValue, String)] = [
            (.members(["failures": .number("101")]), "rate_limits.lockout.failures"),
            (.members(["failures": .number("0")]), "rate_limits.lockout.failures"),
            (.members(["window_seconds": .number("0")]), "rate_limits.lockout.window_seconds"),
            (.members(["first_lock_seconds": .number("86401")]), "rate_limits.lockout.first_lock_seconds"),
            (
                .members(["first_lock_seconds": .number("120"), "maximum_lock_seconds": .number("60")]),
                "rate_limits.lockout.maximum_lock_seconds"
            ),
        ]
        for (lockout, member) in refused {
            #expect {
                _ = try AccountRouter(adjust: try Self.rateLimits(.members(["lockout": lockout])))
            } throws: { error in
                "\(error)".contains(member)
            }
        }
    }

    @Test func aLockedIdentitysSignInIsAnsweredAsAForgedProofAndRecordedAsLocked() async throws {
        let routes = try AccountRouter()
        try await routes.run { client in
            let first = try await client.send(.post, "/v1/signin/dev", body: #"{"subject": "alice"}"#)
            #expect(first.status == 200)
            let subjectHash = try #require(
                routes.stores.events.events(ofType: .signinSucceeded).first?.data["subject_hash"]?.stringValue
            )
            let stream = IdentityLockout.streamName(provider: "dev", subjectHash: subjectHash)
            try await routes.stores.events.append(
                try EventEnvelope(
                    IdentityLocked(
                        subjectHash: subjectHash,
                        failures: 10,
                        windowSeconds: 900,
                        level: 1,
                        lockedUntil: Timestamp.now().adding(seconds: 600).description
                    ),
                    stream: stream,
                    outcome: .failure,
                    reason: "too_many_failures",
                    provider: "dev"
                )
            )
            let locked = try await client.send(.post, "/v1/signin/dev", body: #"{"subject": "alice"}"#)
            #expect(locked.status == 401)
            #expect(locked.headers[.contentType] == "application/json")
            #expect(locked.body == IdentityLocks.lockedAnswer.jsonBody)
            #expect(locked.string("error") == "invalid_signature")
            let failed = try #require(routes.stores.events.events(ofType: .signinFailed).last)
            #expect(failed.reason == "identity_locked")
            #expect(failed.data["subject_hash"]?.stringValue == subjectHash)
            // Another identity signs in.
            #expect(try await client.send(.post, "/v1/signin/dev", body: #"{"subject": "bob"}"#).status == 200)
        }
    }
}
