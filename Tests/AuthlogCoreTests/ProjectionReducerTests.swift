import AuthlogCore
import Foundation
import Testing

struct ProjectionReducerTests {
    private let userID = UUID()
    private let sessionID = UUID()
    private let at = Timestamp(microsecondsSinceEpoch: 1_795_266_374_000_000)

    private var session: StreamName { StreamName(category: "session", id: self.sessionID.lowercased) }

    @Test func aSigninStartsASessionAndCountsTheDay() throws {
        let event = try EventEnvelope(
            SigninSucceeded(method: "id_token", subjectHash: "s", isNewUser: false),
            stream: self.session,
            occurredAt: self.at,
            provider: "kakao",
            userID: self.userID,
            sessionID: self.sessionID,
            clientID: "app"
        )
        #expect(
            try ProjectionReducer.changes(for: event) == [
                .startSession(
                    sessionID: self.sessionID,
                    userID: self.userID,
                    provider: "kakao",
                    clientID: "app",
                    kind: .rememberMe,
                    at: self.at
                ),
                .countSignin(day: self.at.dayNumber, provider: "kakao", outcome: .success),
                .clearIdentityFailures(provider: "kakao", subjectHash: "s"),
            ]
        )
    }

    @Test func logoutOfAllSessionsEndsEverySessionAndToken() throws {
        let event = try EventEnvelope(
            SessionLoggedOut(scope: .all),
            stream: self.session,
            occurredAt: self.at,
            userID: self.userID,
            sessionID: self.sessionID
        )
        #expect(
            try ProjectionReducer.changes(for: event) == [
                .endUserSessions(
                    userID: self.userID,
                    provider: nil,
                    state: .loggedOut,
                    reason: "logout_all",
                    at: self.at
                ),
                .revokeUserTokens(userID: self.userID, provider: nil, reason: "logout", at: self.at),
            ]
        )
    }

    @Test func reuseRevokesTheFamilyAndTheSession() throws {
        let family = UUID()
        let token = UUID()
        let event = try EventEnvelope(
            TokenReuseDetected(tokenID: token, familyID: family),
            stream: self.session,
            occurredAt: self.at,
            reason: "refresh_token_reused",
            userID: self.userID,
            sessionID: self.sessionID
        )
        #expect(event.outcome == .failure)
        #expect(
            try ProjectionReducer.changes(for: event) == [
                .revokeFamily(familyID: family, sessionID: self.sessionID, reason: "reuse", at: self.at),
                .endSession(sessionID: self.sessionID, state: .revoked, reason: "reuse", at: self.at),
            ]
        )
    }

    @Test func consentWithdrawalEndsOnlyThatProvidersSessions() throws {
        let event = try EventEnvelope(
            ProviderConsentRevoked(source: .appleNotification),
            stream: StreamName(category: "user", id: self.userID.lowercased),
            occurredAt: self.at,
            provider: "apple",
            userID: self.userID
        )
        let changes = try ProjectionReducer.changes(for: event)
        #expect(
            changes.first
                == .endUserSessions(
                    userID: self.userID,
                    provider: "apple",
                    state: .revoked,
                    reason: "provider_consent_revoked",
                    at: self.at
                )
        )
    }

    @Test func auditEventsChangeNoProjection() throws {
        let event = try EventEnvelope(
            AuditAccessed(actor: "os:root", query: "report"),
            stream: StreamName(category: "audit", id: "access")
        )
        #expect(try ProjectionReducer.changes(for: event).isEmpty)
    }

    /// Events another system sent over HTTP carry `data.ingested_by`: they are counted in the sign-in reports
    /// and change nothing else.
    @Test func ingestedEventsAreCountedAndChangeNothingElse() throws {
        let session = UUID()
        let user = UUID()
        func succeeded(ingested: Bool) -> EventEnvelope {
            var data: [(name: String, value: JSONValue)] = [
                ("method", .string("id_token")), ("subject_hash", .string(String(repeating: "a", count: 64))),
                ("is_new_user", .bool(false)),
            ]
            if ingested { data.append(("ingested_by", .string("key:crm"))) }
            return EventEnvelope(
                stream: StreamName(category: "session", id: session.lowercased),
                type: .signinSucceeded,
                provider: "apple",
                userID: user,
                sessionID: session,
                data: .object(data)
            )
        }
        let own = try ProjectionReducer.changes(for: succeeded(ingested: false))
        let ingested = try ProjectionReducer.changes(for: succeeded(ingested: true))
        #expect(own.contains { if case .startSession = $0 { return true } else { return false } })
        #expect(ingested.count == 1)
        #expect(ingested.allSatisfy { if case .countSignin = $0 { return true } else { return false } })
    }
}
