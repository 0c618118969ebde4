import AuthlogAccounts
import AuthlogCore
import AuthlogCrypto
import AuthlogProviders
import AuthlogTesting
import Foundation
import Testing

/// The identity lockout over the in-memory stores, with a real OpenID Connect provider (a fake issuer on
/// 127.0.0.1 signing real RS256 tokens): only proofs the provider vouched for count, the locked answer is
/// the forged-proof answer, the back-off doubles up to its cap, and locks run out or are lifted.
@Suite struct LockoutRuleTests {
    /// A rule harness whose sign-in service has the provider `oidc` at a fake issuer, under `policy`.
    struct Harness {
        let rules: RuleHarness
        let fake: FakeIdentityProvider
        let signin: SigninService

        init(_ policy: LockoutPolicy) async throws {
            var settings = RuleHarness.settings
            settings.lockout = policy
            self.rules = try RuleHarness(settings: settings)
            self.fake = try await FakeIdentityProvider.start()
            let oidc = OIDCProvider(
                name: "oidc",
                settings: .init(issuer: self.fake.baseURL, clientIDs: ["app"]),
                fetcher: AsyncHTTPFetcher(timeout: .seconds(90))
            )
            self.signin = SigninService(dependencies: self.rules.dependencies, providers: [oidc])
        }

        /// A token for `subject`: valid now, unless adjusted.
        func token(
            _ subject: String,
            issuer: String? = nil,
            audience: String = "app",
            issuedAt: Int64? = nil,
            lifetime: Int64 = 600,
            nonce: String? = nil,
            key: PrivateKey? = nil
        ) throws -> String {
            let claims = FakeIdentityProvider.claims(
                issuer: issuer ?? self.fake.baseURL,
                audience: .string(audience),
                subject: subject,
                nonce: nonce,
                issuedAt: issuedAt,
                lifetime: lifetime
            )
            return try self.fake.sign(claims, key: key)
        }

        /// A token of `subject` that is otherwise the provider's own and expired 100 s ago, within its lifetime
        /// (600 s): it could still be an attempt at the identity, so it counts.
        func expiredToken(_ subject: String) throws -> String {
            try self.token(subject, issuedAt: Int64(Date().timeIntervalSince1970) - 700, lifetime: 600)
        }

        /// A genuine token of `subject` (ten minutes long) that expired a day ago: a replay, which never counts.
        func dayOldToken(_ subject: String) throws -> String {
            try self.token(subject, issuedAt: Int64(Date().timeIntervalSince1970) - 87_000, lifetime: 600)
        }

        /// A token naming `subject` whose signature does not verify (same `kid`, another key): it never counts.
        func forgedToken(_ subject: String) throws -> String {
            try self.token(subject, key: try PrivateKey.generate(for: .rs256))
        }

        /// Signs in with `idToken`; the refusal, or `nil` when it succeeded.
        @discardableResult
        func attempt(_ idToken: String, rawNonce: String? = nil) async -> ServiceError? {
            do {
                _ = try await self.signin.signIn(
                    provider: "oidc",
                    proof: SigninProof(idToken: idToken, rawNonce: rawNonce),
                    rememberMe: false,
                    metadata: RuleHarness.request
                )
                return nil
            } catch {
                return error
            }
        }

        /// `signin.failed` events, in order.
        var failures: [EventEnvelope] { self.rules.events(.signinFailed) }
        /// `identity.locked` events, in order.
        var locks: [EventEnvelope] { self.rules.events(.identityLocked) }
        /// `identity.unlocked` events, in order.
        var unlocks: [EventEnvelope] { self.rules.events(.identityUnlocked) }
    }

    static func policy(
        failures: Int = 3,
        window: Int = 600,
        first: Int = 60,
        maximum: Int = 3_600
    ) -> LockoutPolicy {
        LockoutPolicy(failures: failures, windowSeconds: window, firstLockSeconds: first, maximumLockSeconds: maximum)
    }

    @Test func aLockTripsAtTheLimitAndNotOneFailureBefore() async throws {
        let harness = try await Harness(Self.policy(failures: 3))
        defer { Task { await harness.fake.stop() } }
        for _ in 0..<2 { #expect(await harness.attempt(try harness.expiredToken("victim"))?.code == "expired") }
        #expect(harness.locks.isEmpty)
        // Two failures are below the limit: another identity's failures do not add to them.
        #expect(await harness.attempt(try harness.expiredToken("bystander"))?.code == "expired")
        #expect(harness.locks.isEmpty)
        #expect(await harness.attempt(try harness.expiredToken("victim"))?.code == "expired")
        let lock = try #require(harness.locks.first)
        #expect(harness.locks.count == 1)
        #expect(lock.reason == "too_many_failures")
        #expect(lock.outcome == .failure)
        #expect(lock.provider == "oidc")
        let subjectHash = try #require(lock.data["subject_hash"]?.stringValue)
        let hashes = harness.failures.map { $0.data["subject_hash"]?.stringValue }
        #expect(hashes.count == 4 && hashes.allSatisfy { $0 != nil })
        #expect(hashes.filter { $0 == subjectHash }.count == 3, "the bystander's failure is its own")
        #expect(lock.data["failures"] == .number("3"))
        #expect(lock.data["level"] == .number("1"))
        #expect(lock.stream.rawValue == "identity-oidc:\(subjectHash)")
        let until = try #require(lock.data["locked_until"]?.stringValue.flatMap(Timestamp.init(iso8601:)))
        #expect(until.microsecondsSinceEpoch - lock.occurredAt.microsecondsSinceEpoch == 60_000_000)

        // Locked: even a valid proof is refused, recorded as identity_locked with the subject hash.
        let refusal = try #require(await harness.attempt(try harness.token("victim")))
        #expect(refusal.code == "invalid_signature")
        let locked = try #require(harness.failures.last)
        #expect(locked.reason == "identity_locked")
        #expect(locked.data["subject_hash"]?.stringValue == subjectHash)
        #expect(harness.rules.events(.signinSucceeded).isEmpty)
        // Another identity of the provider is not affected.
        #expect(await harness.attempt(try harness.token("bystander")) == nil)
    }

    @Test func theLockedAnswerIsExactlyTheForgedProofAnswer() async throws {
        let harness = try await Harness(Self.policy(failures: 2))
        defer { Task { await harness.fake.stop() } }
        for _ in 0..<2 { await harness.attempt(try harness.expiredToken("victim")) }
        #expect(harness.locks.count == 1)
        let locked = try #require(await harness.attempt(try harness.token("victim")))
        let forged = try #require(await harness.attempt(try harness.forgedToken("victim")))
        #expect(harness.failures.last?.reason == "invalid_signature")
        #expect(locked.status == forged.status)
        #expect(locked.jsonBody == forged.jsonBody)
        #expect(locked.headers == forged.headers)
        #expect(locked.status == .unauthorized)
        #expect(String(decoding: locked.jsonBody, as: UTF8.self).contains("identity") == false)
    }

    @Test func proofsThatDoNotVerifyAsTheProvidersNeverCount() async throws {
        let harness = try await Harness(Self.policy(failures: 2))
        defer { Task { await harness.fake.stop() } }
        let now = Int64(Date().timeIntervalSince1970)
        // Each names the victim, and each fails before the provider vouched for it: signature, issuer, audience.
        let refused: [(token: String, reason: String)] = [
            (try harness.forgedToken("victim"), "invalid_signature"),
            (try harness.token("victim", issuer: "https://evil.example"), "issuer_mismatch"),
            (try harness.token("victim", audience: "someone-else"), "audience_mismatch"),
            // Expired too, but for another audience: the provider did not vouch for it to us.
            (try harness.token("victim", audience: "someone-else", issuedAt: now - 700, lifetime: 600), "expired"),
            (
                try harness.token("victim", issuer: "https://evil.example", issuedAt: now - 700, lifetime: 600),
                "expired"
            ),
        ]
        for _ in 0..<3 {
            for (token, reason) in refused { #expect(await harness.attempt(token)?.code == reason) }
        }
        #expect(harness.failures.count == 15)
        #expect(harness.failures.allSatisfy { $0.data["subject_hash"] == nil })
        #expect(harness.locks.isEmpty)
        #expect(await harness.attempt(try harness.token("victim")) == nil)
    }

    /// A genuine ID token that expired a day ago, replayed from anywhere, must not lock its user: only a proof
    /// that expired within its lifetime plus the leeway could still be an attempt at the identity. Under the
    /// default policy (ten failures in fifteen minutes), ten stale replays lock nothing and are recorded
    /// without a subject hash; ten that expired within the window lock.
    @Test func tenReplaysOfADayOldTokenDoNotLockTheUserButTenRecentOnesDo() async throws {
        let harness = try await Harness(LockoutPolicy())
        defer { Task { await harness.fake.stop() } }
        let stale = try harness.dayOldToken("victim")
        for _ in 0..<10 { #expect(await harness.attempt(stale)?.code == "expired") }
        #expect(harness.failures.count == 10)
        #expect(harness.failures.allSatisfy { $0.reason == "expired" && $0.data["subject_hash"] == nil })
        #expect(harness.locks.isEmpty)
        #expect(await harness.attempt(try harness.token("victim")) == nil, "the user signs in")

        let recent = try harness.expiredToken("victim")
        for _ in 0..<10 { #expect(await harness.attempt(recent)?.code == "expired") }
        let counted = harness.failures.dropFirst(10)
        #expect(counted.count == 10 && counted.allSatisfy { $0.data["subject_hash"] != nil })
        #expect(harness.locks.count == 1)
        #expect(harness.locks.first?.data["failures"] == .number("10"))
    }

    @Test func aReusedNonceCountsAgainstTheIdentity() async throws {
        let harness = try await Harness(Self.policy(failures: 2))
        defer { Task { await harness.fake.stop() } }
        let token = try harness.token("victim", nonce: "n-1")
        #expect(await harness.attempt(token, rawNonce: "n-1") == nil)
        #expect(await harness.attempt(token, rawNonce: "n-1")?.code == "nonce_replayed")
        #expect(
            await harness.attempt(try harness.token("victim", nonce: "n-2"), rawNonce: "n-3")?.code == "nonce_mismatch"
        )
        #expect(harness.failures.allSatisfy { $0.data["subject_hash"] != nil })
        #expect(harness.locks.count == 1)
    }

    @Test func aSuccessfulSignInStartsTheCountOver() async throws {
        let harness = try await Harness(Self.policy(failures: 3))
        defer { Task { await harness.fake.stop() } }
        for _ in 0..<2 { await harness.attempt(try harness.expiredToken("victim")) }
        #expect(await harness.attempt(try harness.token("victim")) == nil)
        // Consecutive failures count (NIST SP 800-63B): two more after the success do not lock.
        for _ in 0..<2 { await harness.attempt(try harness.expiredToken("victim")) }
        #expect(harness.locks.isEmpty)
        await harness.attempt(try harness.expiredToken("victim"))
        #expect(harness.locks.count == 1)
    }

    @Test func failuresOutsideTheWindowDoNotCount() async throws {
        let harness = try await Harness(Self.policy(failures: 3, window: 2))
        defer { Task { await harness.fake.stop() } }
        for _ in 0..<2 { await harness.attempt(try harness.expiredToken("victim")) }
        try await Task.sleep(for: .milliseconds(2_200))
        await harness.attempt(try harness.expiredToken("victim"))
        // Three failures, but only one within the window.
        #expect(harness.locks.isEmpty)
        for _ in 0..<2 { await harness.attempt(try harness.expiredToken("victim")) }
        #expect(harness.locks.count == 1)
    }

    @Test func theBackOffDoublesUpToItsCap() {
        let policy = Self.policy(first: 60, maximum: 3_600)
        #expect((1...8).map { policy.lockSeconds(level: $0) } == [60, 120, 240, 480, 960, 1_920, 3_600, 3_600])
        #expect(policy.lockSeconds(level: 10_000) == 3_600)
        let now = Timestamp.now()
        let ended = IdentityLockout(level: 3, lockedUntil: now.adding(seconds: -10))
        #expect(policy.nextLevel(after: ended, at: now) == 4)
        // A lock that ended more than a window ago starts the back-off over.
        let old = IdentityLockout(level: 3, lockedUntil: now.adding(seconds: -601))
        #expect(policy.nextLevel(after: old, at: now) == 1)
        #expect(policy.nextLevel(after: IdentityLockout(), at: now) == 1)
        // Out-of-range settings are clamped, never trusted.
        let clamped = LockoutPolicy(failures: 1_000, windowSeconds: 0, firstLockSeconds: -5, maximumLockSeconds: 0)
        #expect(clamped.failures == IdentityLockout.keptFailures)
        #expect(clamped.windowSeconds == 1 && clamped.firstLockSeconds == 1 && clamped.maximumLockSeconds == 1)
    }

    @Test func aLockExpiresAndFailuresThatGoOnLockLongerUpToTheCap() async throws {
        let harness = try await Harness(Self.policy(failures: 2, window: 600, first: 1, maximum: 2))
        defer { Task { await harness.fake.stop() } }
        for _ in 0..<2 { await harness.attempt(try harness.expiredToken("victim")) }
        #expect(harness.locks.count == 1)
        #expect(await harness.attempt(try harness.token("victim"))?.code == "invalid_signature")
        try await Task.sleep(for: .milliseconds(1_200))
        // The failures are still within the window: the next one locks again, twice as long.
        await harness.attempt(try harness.expiredToken("victim"))
        #expect(harness.unlocks.map { $0.data["cause"] } == [.string("expired")])
        #expect(harness.locks.map { $0.data["level"] } == [.number("1"), .number("2")])
        let second = try #require(harness.locks.last)
        let until = try #require(second.data["locked_until"]?.stringValue.flatMap(Timestamp.init(iso8601:)))
        #expect(until.microsecondsSinceEpoch - second.occurredAt.microsecondsSinceEpoch == 2_000_000)
        try await Task.sleep(for: .milliseconds(2_200))
        await harness.attempt(try harness.expiredToken("victim"))
        let third = try #require(harness.locks.last)
        #expect(third.data["level"] == .number("3"))
        let thirdUntil = try #require(third.data["locked_until"]?.stringValue.flatMap(Timestamp.init(iso8601:)))
        #expect(thirdUntil.microsecondsSinceEpoch - third.occurredAt.microsecondsSinceEpoch == 2_000_000)
        try await Task.sleep(for: .milliseconds(2_200))
        // Run out: a valid proof signs in, and the expiry goes in the same command as the sign-in.
        #expect(await harness.attempt(try harness.token("victim")) == nil)
        let expiry = try #require(harness.unlocks.last)
        #expect(harness.unlocks.count == 3)
        #expect(expiry.data["cause"] == .string("expired"))
        #expect(expiry.data["actor"] == nil)
        #expect(expiry.requestID == harness.rules.events(.signinSucceeded).last?.requestID)
    }

    @Test func theExpiryPassRecordsEachRunOutLockOnce() async throws {
        let harness = try await Harness(Self.policy(failures: 2, first: 1, maximum: 1))
        defer { Task { await harness.fake.stop() } }
        for subject in ["victim-1", "victim-2"] {
            for _ in 0..<2 { await harness.attempt(try harness.expiredToken(subject)) }
        }
        #expect(harness.locks.count == 2)
        let locks = IdentityLocks(dependencies: harness.rules.dependencies)
        // Still in force: nothing to record.
        #expect(try await locks.recordExpiries() == 0)
        try await Task.sleep(for: .milliseconds(1_100))
        // Two passes at once, as two processes would run them: each expiry is recorded once.
        async let first = locks.recordExpiries(batchSize: 1)
        async let second = locks.recordExpiries(batchSize: 1)
        #expect(try await first + second == 2)
        #expect(harness.unlocks.count == 2)
        #expect(harness.unlocks.allSatisfy { $0.data["cause"] == .string("expired") && $0.data["actor"] == nil })
        #expect(Set(harness.unlocks.map(\.stream)).count == 2)
        #expect(try await locks.recordExpiries() == 0)
        // The next sign-in finds the expiry recorded and records no second one.
        #expect(await harness.attempt(try harness.token("victim-1")) == nil)
        #expect(harness.unlocks.count == 2)
    }

    @Test func anOperatorLiftsTheLockAndTheCountStartsOver() async throws {
        let harness = try await Harness(Self.policy(failures: 2))
        defer { Task { await harness.fake.stop() } }
        for _ in 0..<2 { await harness.attempt(try harness.expiredToken("victim")) }
        let subjectHash = try #require(harness.locks.first?.data["subject_hash"]?.stringValue)
        let unlocked = try await harness.signin.unlockIdentity(
            provider: "oidc",
            subjectHash: subjectHash,
            actor: "key:ops",
            metadata: RuleHarness.request
        )
        #expect(unlocked)
        let event = try #require(harness.unlocks.first)
        #expect(event.data["cause"] == .string("operator"))
        #expect(event.data["actor"] == .string("key:ops"))
        #expect(event.outcome == .success)
        // Unlocking again finds nothing locked and records nothing.
        let again = try await harness.signin.unlockIdentity(
            provider: "oidc",
            subjectHash: subjectHash,
            actor: "key:ops",
            metadata: RuleHarness.request
        )
        #expect(!again)
        #expect(harness.unlocks.count == 1)
        // The counted failures were forgotten: one more does not lock again.
        await harness.attempt(try harness.expiredToken("victim"))
        #expect(harness.locks.count == 1)
        let state = try await harness.signin.lockout(provider: "oidc", subjectHash: subjectHash)
        #expect(state.recentFailures == 1 && state.level == 0 && !state.isLockRecorded)
        #expect(await harness.attempt(try harness.token("victim")) == nil)
        // A malformed hash or provider is refused before anything is read.
        await #expect(throws: ServiceError.self) {
            try await harness.signin.unlockIdentity(
                provider: "oidc",
                subjectHash: "ABC",
                actor: "key:ops",
                metadata: RuleHarness.request
            )
        }
    }

    @Test func concurrentFailuresRecordOneLock() async throws {
        let harness = try await Harness(Self.policy(failures: 3))
        defer { Task { await harness.fake.stop() } }
        let tokens = try (0..<12).map { _ in try harness.expiredToken("victim") }
        await withTaskGroup(of: Void.self) { group in
            for token in tokens { group.addTask { await harness.attempt(token) } }
        }
        #expect(harness.failures.count == 12)
        #expect(harness.locks.count == 1)
    }

    @Test func aDisabledLockoutCountsNothingAndRefusesNothing() async throws {
        let harness = try await Harness(.disabled)
        defer { Task { await harness.fake.stop() } }
        for _ in 0..<12 { await harness.attempt(try harness.expiredToken("victim")) }
        #expect(harness.locks.isEmpty)
        #expect(await harness.attempt(try harness.token("victim")) == nil)
    }
}
