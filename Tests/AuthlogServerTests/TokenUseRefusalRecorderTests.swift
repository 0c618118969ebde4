import AuthlogAccounts
import AuthlogCore
import Foundation
import Testing

@testable import AuthlogServer

/// A session's tokens refused for their DPoP proof are recorded on the session, a flood as two events; past the
/// key cap the sessions' refusals are still all counted, without pinning them on the wrong session.
struct TokenUseRefusalRecorderTests {
    static func refusal(_ reason: String, session: UUID) -> TokenUseRefusal {
        TokenUseRefusal(
            reason: reason,
            session: TokenUseRefusal.Session(
                userID: UUID(),
                sessionID: session,
                clientID: "com.example.app",
                tokenID: UUID(),
                tokenKind: .accessToken
            )
        )
    }

    static let thief = RequestMetadata(ip: IPAddress("198.51.100.9"), userAgent: "curl/8.5", requestID: "req-1")

    @Test func aFloodOnOneSessionIsTheFirstRefusalAndOneSummary() throws {
        let recorder = RefusalRecorder(policy: .defaults)
        let session = UUID()
        for index in 0..<500 {
            let reason = index.isMultiple(of: 5) ? "dpop_missing" : "dpop_wrong_key"
            recorder.noteTokenUse(Self.refusal(reason, session: session), route: "GET /v1/me", metadata: Self.thief)
        }
        let events = try recorder.takeEvents(everything: true).map(\.event)
        #expect(events.map(\.type) == [.tokenAccessRefused, .tokenAccessRefused])
        #expect(
            events.allSatisfy { $0.sessionID == session && $0.stream.description == "session-\(session.lowercased)" }
        )
        #expect(events.first?.requestID == "req-1" && events.last?.requestID == nil)
        #expect(events.first?.reason == "dpop_missing" && events.last?.reason == "dpop_wrong_key")
        let counts = events.map { $0.data["counts"] }
        #expect(counts.first == .object([("dpop_missing", .number("1"))]))
        let summary = try #require(counts.last ?? nil)
        #expect(summary["dpop_wrong_key"]?.integerValue == 400 && summary["dpop_missing"]?.integerValue == 99)
    }

    @Test func aRefusalThatNamesNoSessionCountsForItsAddress() throws {
        let recorder = RefusalRecorder(policy: .defaults)
        recorder.noteTokenUse(
            TokenUseRefusal(reason: "dpop_htu_mismatch", session: nil),
            route: "POST /oauth/revoke",
            metadata: Self.thief
        )
        let event = try #require(try recorder.takeEvents(everything: true).first?.event)
        #expect(event.type == .requestRefused && event.ip?.description == "198.51.100.9")
        #expect(event.reason == "dpop_htu_mismatch")
    }

    @Test func pastTheKeyCapEverySessionsRefusalIsCountedAndNoneIsPinnedOnAnother() throws {
        let recorder = RefusalRecorder(policy: .defaults)
        let sessions = (0..<10_002).map { _ in UUID() }
        for session in sessions {
            recorder.noteTokenUse(
                Self.refusal("dpop_wrong_key", session: session),
                route: "GET /v1/me",
                metadata: Self.thief
            )
        }
        let pending = try recorder.takeEvents(everything: true)
        #expect(pending.map(\.requests).reduce(0, +) == 10_002, "every refusal accounted for")
        let onSessions = pending.map(\.event).filter { $0.type == .tokenAccessRefused }
        #expect(onSessions.count == 10_001, "10,000 sessions, and the first of the overflow window with its own")
        #expect(Set(onSessions.compactMap(\.sessionID)).isSubset(of: Set(sessions)))
        let mixed = try #require(pending.map(\.event).first { $0.type == .requestRefused })
        #expect(mixed.ip == nil && mixed.sessionID == nil && mixed.reason == "dpop_wrong_key")
    }
}
