import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogProviders
import AuthlogServer
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// Two sign-in services, each with its own pool, event store and group-commit writer on one database — as two
/// `authlog serve` processes are — racing failed proofs of the same identities: each identity is locked
/// exactly once, and no lock is lost.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct IdentityLockoutRaceTests {
    /// Counts nothing: the race is about the log, not the metrics.
    struct NoMetrics: SigninMetrics {
        func recordSignin(provider: String, outcome: String) {}
    }

    /// One "process": its own pool, store and writer over `conninfo`, with the provider `oidc` at `issuer`.
    static func process(conninfo: String, issuer: String, policy: LockoutPolicy) throws -> SigninService {
        let pool = ConnectionPool(conninfo: conninfo, maximumConnections: 6)
        var settings = ServiceSettings()
        settings.lockout = policy
        let dependencies = ServiceDependencies(
            store: PostgresEventStore(pool: pool),
            state: AccountState.postgres(pool: pool),
            accessTokens: try AccessTokenIssuer(
                key: try PrivateKey.generate(for: .es256),
                issuer: "http://race.test",
                audience: "authlog"
            ),
            settings: settings,
            metrics: NoMetrics(),
            dataKey: nil,
            hasher: IdentityHasher(key: Array(repeating: 7, count: 32))
        )
        let oidc = OIDCProvider(
            name: "oidc",
            settings: .init(issuer: issuer, clientIDs: ["app"]),
            fetcher: AsyncHTTPFetcher(timeout: .seconds(90))
        )
        return SigninService(dependencies: dependencies, providers: [oidc])
    }

    @Test func twoProcessesRacingFailuresLockEachIdentityOnce() async throws {
        let database = try await TestDatabase.make()
        let fake = try await FakeIdentityProvider.start()
        defer { Task { await fake.stop() } }
        // Locks of an hour: on a loaded machine the 64 attempts can take longer than a minute, and a lock that ran
        // out meanwhile would rightly be followed by a second one.
        let policy = LockoutPolicy(
            failures: 4,
            windowSeconds: 3_600,
            firstLockSeconds: 3_600,
            maximumLockSeconds: 7_200
        )
        let processes = try (0..<2).map { _ in
            try Self.process(conninfo: database.conninfo, issuer: fake.baseURL, policy: policy)
        }
        // Four identities get twelve failures each; four get exactly as many as lock (4), so that a lock decided
        // before every failure of the identity was counted would be lost.
        let subjects = (0..<8).map { "victim-\($0)" }
        let now = Int64(Date().timeIntervalSince1970)
        // The expired proofs, half through each process, all at once.
        var attempts: [(process: SigninService, token: String)] = []
        for subject in subjects {
            for index in 0..<(subject < "victim-4" ? 12 : 4) {
                let claims = FakeIdentityProvider.claims(
                    issuer: fake.baseURL,
                    audience: .string("app"),
                    subject: subject,
                    issuedAt: now - 700,
                    lifetime: 600
                )
                attempts.append((processes[index % 2], try fake.sign(claims)))
            }
        }
        let codes = await withTaskGroup(of: String?.self) { group in
            for attempt in attempts {
                group.addTask {
                    do {
                        _ = try await attempt.process.signIn(
                            provider: "oidc",
                            proof: SigninProof(idToken: attempt.token),
                            rememberMe: false,
                            metadata: RequestMetadata(requestID: "race-\(UUID())")
                        )
                        return nil
                    } catch let error as ServiceError {
                        return error.code
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(codes.count == 64 && codes.allSatisfy { $0 == "expired" })
        let conninfo = database.conninfo
        let connection = try await Connection.connect(conninfo)
        func count(_ query: SQLQuery) async throws -> Int64 {
            try await connection.query(query).first?.decode(Int64.self, at: 0) ?? -1
        }
        // Committed events (sealed or still queued: both are in event_records).
        #expect(try await count("SELECT count(*) FROM authlog.event_records WHERE type = 'signin.failed'") == 64)
        let locks = try await count("SELECT count(*) FROM authlog.event_records WHERE type = 'identity.locked'")
        #expect(locks == 8)
        if locks != 8 {
            let rows = try await connection.query(
                """
                SELECT coalesce(string_agg(concat_ws(' ', stream, type, occurred_at, data->>'level',
                                                     data->>'locked_until', data->>'cause'), E'\n' ORDER BY recorded_at, stream_version), '-')
                FROM authlog.event_records WHERE type LIKE 'identity.%'
                """
            )
            Issue.record("locks and unlocks:\n\(try rows.first?.decode(String.self, at: 0) ?? "-")")
        }
        #expect(
            try await count(
                "SELECT count(DISTINCT stream) FROM authlog.event_records WHERE type = 'identity.locked'"
            ) == 8
        )
        #expect(
            try await count(
                """
                SELECT count(*) FROM authlog.identity_lockouts
                WHERE cardinality(recent_failures) IN (4, 12) AND level = 1 AND unlocked_at IS NULL
                    AND locked_until > now()
                """
            ) == 8
        )
        // And each identity is refused through either process, even with a valid proof.
        for (index, subject) in subjects.enumerated() {
            let valid = try fake.sign(
                FakeIdentityProvider.claims(issuer: fake.baseURL, audience: .string("app"), subject: subject)
            )
            await #expect(throws: ServiceError.self) {
                _ = try await processes[index % 2].signIn(
                    provider: "oidc",
                    proof: SigninProof(idToken: valid),
                    rememberMe: false,
                    metadata: RequestMetadata(requestID: "after-\(subject)")
                )
            }
        }
        #expect(try await count("SELECT count(*) FROM authlog.event_records WHERE reason = 'identity_locked'") == 8)
    }
}
