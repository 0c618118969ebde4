import AuthlogAccounts
import AuthlogCore
import Foundation
import Testing

/// `POST /v1/me/activity/{event_id}/not-me`, decided by AccountService over the in-memory stores: the user's
/// word that an entry of their activity was not them ends every session of theirs and is recorded.
struct NotMeTests {
    let rules: RuleHarness

    init() throws {
        self.rules = try RuleHarness()
    }

    /// The `signin.succeeded` of a session.
    func signinEvent(of sessionID: UUID) throws -> EventEnvelope {
        try #require(self.rules.events(.signinSucceeded).first { $0.sessionID == sessionID })
    }

    @Test func reportingAnEntryEndsEverySessionOfTheUserAndRecordsTheReport() async throws {
        let phone = try await self.rules.signIn("alice")
        let intruder = try await self.rules.signIn("alice")
        let bob = try await self.rules.signIn("bob")
        let reported = try self.signinEvent(of: intruder.sessionID)

        let ended = try await self.rules.accounts.reportNotMe(
            bearer: phone.accessToken,
            eventID: reported.eventID.lowercased,
            metadata: RuleHarness.request
        )
        #expect(Set(ended) == [phone.sessionID, intruder.sessionID], "the caller's own session too")
        #expect(try await self.rules.refreshes(intruder.refreshToken) == false)
        #expect(try await self.rules.refreshes(phone.refreshToken) == false)
        #expect(try await self.rules.refreshes(bob.refreshToken), "another user's sessions are untouched")
        let revoked = self.rules.events(.sessionRevoked)
        #expect(Set(revoked.compactMap(\.sessionID)) == [phone.sessionID, intruder.sessionID])
        #expect(revoked.allSatisfy { $0.reason == "not_me" && $0.data["actor"]?.stringValue == "user" })
        let report = try #require(self.rules.events(.accountNotMeReported).first)
        #expect(report.userID == phone.userID && report.sessionID == phone.sessionID && report.outcome == .success)
        #expect(report.data["reported_event_id"]?.stringValue == reported.eventID.lowercased)
        #expect(report.data["reported_type"]?.stringValue == "signin.succeeded")
        guard case .array(let listed)? = report.data["sessions_ended"] else {
            Issue.record("no sessions_ended")
            return
        }
        #expect(listed.compactMap(\.stringValue) == ended.map(\.lowercased), "the report names what ended, in order")

        // The caller's session ended with the rest: its access token reports nothing more, so one live session
        // gives one report, not a stream of them.
        let again = await #expect(throws: ServiceError.self) {
            try await self.rules.accounts.reportNotMe(
                bearer: phone.accessToken,
                eventID: reported.eventID.lowercased,
                metadata: RuleHarness.request
            )
        }
        #expect(again?.status.code == 401)
        #expect(self.rules.events(.accountNotMeReported).count == 1)
    }

    /// A report with every session already ended still records the report (the user's word stands), and ends
    /// nothing.
    @Test func aReportAfterTheOtherSessionsEndedStillRecordsIt() async throws {
        let phone = try await self.rules.signIn("alice")
        let laptop = try await self.rules.signIn("alice")
        try await self.rules.accounts.endOwnSession(
            bearer: phone.accessToken,
            sessionID: laptop.sessionID.lowercased,
            metadata: RuleHarness.request
        )
        let ended = try await self.rules.accounts.reportNotMe(
            bearer: phone.accessToken,
            eventID: try self.signinEvent(of: laptop.sessionID).eventID.lowercased,
            metadata: RuleHarness.request
        )
        #expect(ended == [phone.sessionID])
        #expect(self.rules.events(.accountNotMeReported).count == 1)
    }

    @Test func anEntryThatIsNotTheCallersIsNotFoundAlikeAndNothingEnds() async throws {
        let alice = try await self.rules.signIn("alice")
        let bob = try await self.rules.signIn("bob")
        let bobsSignin = try self.signinEvent(of: bob.sessionID).eventID.lowercased
        let alicesTokenIssued = try #require(self.rules.events(.tokenIssued).first { $0.userID == alice.userID })
        var answers: [ServiceError] = []
        for target in [
            bobsSignin, UUID().uuidString.lowercased(), "not-an-event", "",
            alicesTokenIssued.eventID.lowercased,  // the user's, but not an entry of their activity
        ] {
            let refusal = await #expect(throws: ServiceError.self) {
                try await self.rules.accounts.reportNotMe(
                    bearer: alice.accessToken,
                    eventID: target,
                    metadata: RuleHarness.request
                )
            }
            answers += refusal.map { [$0] } ?? []
        }
        #expect(answers.count == 5)
        #expect(answers.allSatisfy { $0.status.code == 404 && $0.code == "not_found" })
        #expect(Set(answers.map(\.errorDescription)).count == 1, "existence does not leak")
        #expect(self.rules.events(.sessionRevoked).isEmpty && self.rules.events(.accountNotMeReported).isEmpty)
        #expect(try await self.rules.refreshes(alice.refreshToken))
        #expect(try await self.rules.refreshes(bob.refreshToken))
        let refused = self.rules.events(.accountActionRefused)
        #expect(refused.count == 5)
        #expect(refused.allSatisfy { $0.reason == "not_found" && $0.data["action"]?.stringValue == "report_not_me" })

        let forged = await #expect(throws: ServiceError.self) {
            try await self.rules.accounts.reportNotMe(
                bearer: "not-a-token",
                eventID: bobsSignin,
                metadata: RuleHarness.request
            )
        }
        #expect(forged?.status.code == 401)
    }
}
