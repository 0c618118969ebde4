import AuthlogAccounts
import AuthlogCore
import AuthlogProviders
import Foundation
import Testing

/// A signed-in user's own sessions and activity (`/v1/me/sessions`, `/v1/me/activity`), decided by
/// AccountService over the in-memory stores.
struct OwnSessionsTests {
    let rules: RuleHarness

    init() throws {
        self.rules = try RuleHarness()
    }

    /// A request's metadata with a client address and user agent.
    static func device(_ name: String, ip: String = "192.0.2.7") -> RequestMetadata {
        RequestMetadata(ip: IPAddress(ip), userAgent: name, requestID: "rule-\(UUID())")
    }

    /// The `audit.accessed` events recorded so far, as (actor, query, outcome).
    var reads: [(actor: String?, query: String?, outcome: Outcome)] {
        self.rules.events(.auditAccessed).map {
            ($0.data["actor"]?.stringValue, $0.data["query"]?.stringValue, $0.outcome)
        }
    }

    @Test func theListShowsTheCallersSessionAsCurrentNewestFirstAndRecordsTheRead() async throws {
        let phone = try await self.rules.signIn(with: "dev", "alice", metadata: Self.device("Phone/1.0"))
        let laptop = try await self.rules.signIn(
            with: "dev",
            "alice",
            metadata: Self.device("Laptop/2.0", ip: "2001:db8::5")
        )
        _ = try await self.rules.signIn("bob")
        #expect(phone.userID == laptop.userID)

        let (current, sessions) = try await self.rules.accounts.ownSessions(
            bearer: phone.accessToken,
            metadata: RuleHarness.request
        )
        #expect(current == phone.sessionID)
        #expect(sessions.map(\.session.sessionID) == [laptop.sessionID, phone.sessionID])
        #expect(sessions.map(\.userAgent) == ["Laptop/2.0", "Phone/1.0"])
        #expect(sessions.map { $0.ip?.description } == ["2001:db8::5", "192.0.2.7"])
        #expect(sessions.allSatisfy { $0.lastRefreshedAt == nil })
        #expect(self.reads.count == 1)
        #expect(self.reads.first?.actor == "user:\(phone.userID.lowercased)")
        #expect(self.reads.first?.query == "me sessions")

        _ = try await self.rules.tokens.refresh(phone.refreshToken, metadata: RuleHarness.request)
        let (_, after) = try await self.rules.accounts.ownSessions(
            bearer: laptop.accessToken,
            metadata: RuleHarness.request
        )
        let refreshed = try #require(after.first { $0.session.sessionID == phone.sessionID })
        #expect(refreshed.lastRefreshedAt != nil)
        #expect(after.first { $0.session.sessionID == laptop.sessionID }?.lastRefreshedAt == nil)
    }

    @Test func anotherUsersUnknownOrMalformedSessionIsNotFoundAlikeAndNothingEnds() async throws {
        let alice = try await self.rules.signIn("alice")
        let bob = try await self.rules.signIn("bob")
        var answers: [ServiceError] = []
        for target in [
            bob.sessionID.lowercased, UUID().uuidString, "not-a-session", "", alice.sessionID.uuidString + "x",
        ] {
            let refusal = await #expect(throws: ServiceError.self) {
                try await self.rules.accounts.endOwnSession(
                    bearer: alice.accessToken,
                    sessionID: target,
                    metadata: RuleHarness.request
                )
            }
            answers += refusal.map { [$0] } ?? []
        }
        #expect(answers.count == 5)
        #expect(answers.allSatisfy { $0.status.code == 404 && $0.code == "not_found" })
        #expect(Set(answers.map(\.errorDescription)).count == 1)
        #expect(try await self.rules.refreshes(bob.refreshToken))
        #expect(try await self.rules.isActive(alice.accessToken))
        #expect(self.rules.events(.sessionRevoked).isEmpty)
        let refused = self.rules.events(.accountActionRefused)
        #expect(refused.count == 5)
        #expect(refused.allSatisfy { $0.reason == "not_found" && $0.userID == alice.userID })
        #expect(refused.first?.data["action"]?.stringValue == "end_session")
    }

    @Test func endingOneOfTheUsersSessionsRevokesItWithActorUser() async throws {
        let phone = try await self.rules.signIn("alice")
        let laptop = try await self.rules.signIn("alice")
        try await self.rules.accounts.endOwnSession(
            bearer: phone.accessToken,
            sessionID: laptop.sessionID.lowercased,
            metadata: RuleHarness.request
        )
        let revoked = try #require(self.rules.events(.sessionRevoked).first)
        #expect(revoked.sessionID == laptop.sessionID)
        #expect(revoked.reason == "user_revoked")
        #expect(revoked.data["actor"]?.stringValue == "user")
        #expect(try await self.rules.refreshes(laptop.refreshToken) == false)
        #expect(try await self.rules.isActive(phone.accessToken))

        // Ended once: a second attempt finds no active session of that id.
        let again = await #expect(throws: ServiceError.self) {
            try await self.rules.accounts.endOwnSession(
                bearer: phone.accessToken,
                sessionID: laptop.sessionID.lowercased,
                metadata: RuleHarness.request
            )
        }
        #expect(again?.status.code == 404)
        #expect(self.rules.events(.sessionRevoked).count == 1)
    }

    @Test func revokeOthersLeavesOnlyTheCallersSession() async throws {
        let first = try await self.rules.signIn("alice")
        let second = try await self.rules.signIn("alice")
        let third = try await self.rules.signIn("alice")
        let bob = try await self.rules.signIn("bob")
        let revoked = try await self.rules.accounts.revokeOtherSessions(
            bearer: second.accessToken,
            metadata: RuleHarness.request
        )
        #expect(revoked == 2)
        let events = self.rules.events(.sessionRevoked)
        #expect(Set(events.compactMap(\.sessionID)) == [first.sessionID, third.sessionID])
        #expect(events.allSatisfy { $0.reason == "user_revoked" && $0.data["actor"]?.stringValue == "user" })
        let (current, sessions) = try await self.rules.accounts.ownSessions(
            bearer: second.accessToken,
            metadata: RuleHarness.request
        )
        #expect(sessions.map(\.session.sessionID) == [current])
        #expect(try await self.rules.refreshes(bob.refreshToken))
        #expect(
            try await self.rules.accounts.revokeOtherSessions(bearer: second.accessToken, metadata: RuleHarness.request)
                == 0
        )
    }

    @Test func activityListsAFailedProofAttributedToTheUserNewestFirst() async throws {
        let alice = try await self.rules.signIn("alice")
        let refreshed = try await self.rules.tokens.refresh(alice.refreshToken, metadata: RuleHarness.request)
        self.rules.apple.refuse("someone", with: ProviderError(.invalidSignature, "forged"))
        _ = await #expect(throws: ServiceError.self) {
            try await self.rules.accounts.reauthenticate(
                bearer: refreshed.accessToken,
                provider: "apple",
                proof: SigninProof(subject: "someone"),
                metadata: RuleHarness.request
            )
        }
        _ = try await self.rules.signIn("bob")
        let (records, next) = try await self.rules.accounts.ownActivity(
            bearer: refreshed.accessToken,
            parameters: [],
            metadata: RuleHarness.request
        )
        #expect(next == nil)
        #expect(records.map(\.type) == [.signinFailed, .tokenRefreshed, .signinSucceeded])
        // The in-memory log places events at once: newest first is highest position first.
        let positions = records.compactMap(\.logPosition)
        #expect(positions.count == 3 && positions == positions.sorted(by: >))
        #expect(records.first?.outcome == .failure)
        #expect(records.first?.provider == "apple")
        #expect(records.first?.reason == "invalid_signature")
        #expect(self.reads.last?.actor == "user:\(alice.userID.lowercased)")
        #expect(self.reads.last?.query == "me activity after=none limit=50")
    }

    @Test func activityPagesWithTheCursorWithoutGapsOrRepeats() async throws {
        var tokens = try await self.rules.signIn("alice")
        for _ in 0..<6 {
            tokens = try await self.rules.tokens.refresh(tokens.refreshToken, metadata: RuleHarness.request)
        }
        let (all, _) = try await self.rules.accounts.ownActivity(
            bearer: tokens.accessToken,
            parameters: [],
            metadata: RuleHarness.request
        )
        #expect(all.count == 7)
        var paged: [ActivityRecord] = []
        var after: ActivityCursor?
        var pages = 0
        repeat {
            var parameters = [(name: "limit", value: "3")]
            if let after { parameters.append((name: "after", value: after.text)) }
            let (page, next) = try await self.rules.accounts.ownActivity(
                bearer: tokens.accessToken,
                parameters: parameters,
                metadata: RuleHarness.request
            )
            paged += page
            after = next
            pages += 1
        } while after != nil && pages < 10
        #expect(pages == 3)
        #expect(paged.map(\.eventID) == all.map(\.eventID))
        #expect(zip(paged, paged.dropFirst()).allSatisfy { $1.position < $0.position })
    }

    @Test func aBadQueryIsRefusedWith400AndRecorded() async throws {
        let alice = try await self.rules.signIn("alice")
        let bad: [[(name: String, value: String)]] = [
            [("limit", "0")], [("limit", "201")], [("limit", "abc")], [("limit", "")], [("limit", "-1")],
            [("limit", "+5")], [("after", "garbage")], [("after", "")], [("limit", "5"), ("limit", "6")],
            [("user_id", alice.userID.lowercased)],
        ]
        for parameters in bad {
            let refusal = await #expect(throws: ServiceError.self) {
                try await self.rules.accounts.ownActivity(
                    bearer: alice.accessToken,
                    parameters: parameters,
                    metadata: RuleHarness.request
                )
            }
            #expect(refusal?.status.code == 400, "\(parameters)")
            #expect(refusal?.code == "invalid_request")
        }
        #expect(self.reads.count == bad.count)
        #expect(self.reads.allSatisfy { $0.outcome == .failure && $0.actor == "user:\(alice.userID.lowercased)" })
        let (records, _) = try await self.rules.accounts.ownActivity(
            bearer: alice.accessToken,
            parameters: [("limit", "200")],
            metadata: RuleHarness.request
        )
        #expect(records.count == 1)
    }

    @Test func aBadBearerIsRefusedBeforeAnythingIsRead() async throws {
        _ = try await self.rules.signIn("alice")
        let refusal = await #expect(throws: ServiceError.self) {
            try await self.rules.accounts.ownSessions(bearer: "not-a-token", metadata: RuleHarness.request)
        }
        #expect(refusal?.status.code == 401)
        #expect(self.rules.events(.auditAccessed).isEmpty)
    }

    @Test func theCursorRoundTripsAndRefusesWhatItDidNotMake() throws {
        let position = ActivityPosition(
            occurredAt: Timestamp(microsecondsSinceEpoch: 1_764_000_000_123_456),
            eventID: UUID()
        )
        let cursor = ActivityCursor(position)
        #expect(ActivityCursor(text: cursor.text) == cursor)
        #expect(ActivityCursor(text: "") == nil)
        #expect(ActivityCursor(text: "bm90LWEtY3Vyc29y") == nil)
        #expect(ActivityCursor(text: String(repeating: "A", count: 200)) == nil)
    }
}
