import AuthlogTransparency
import Foundation
import Testing

@testable import AuthlogClient

/// What a proven event must be to count as the answer's: a type that always names its session is refused
/// without one, whatever sessions the answer allowed; one that never names a session passes the session check.
struct EventExpectationTests {
    let eventID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a00"
    let userID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    let sessionID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c"

    func event(type: String, sessionID: String?) throws -> CanonicalEvent {
        try CanonicalEvent(
            bytes: CanonicalBytes.encode(CanonicalBytes.fields(eventID: self.eventID, type: type, sessionID: sessionID))
        )
    }

    func refusal(of event: CanonicalEvent, sessions: EventExpectation.Sessions) -> ReceiptRefusal? {
        let expectation = EventExpectation(
            userID: self.userID,
            sessions: sessions,
            requestedAt: EventExpectation.date(microseconds: event.occurredAtMicroseconds)
        )
        return expectation.refusal(of: event, position: 1, window: 60)
    }

    @Test func aSessionTypeWithoutItsSessionIsRefused() throws {
        for sessions in [EventExpectation.Sessions.only([self.sessionID]), .anyOfUser] {
            let dropped = try self.event(type: "token.issued", sessionID: nil)
            #expect(self.refusal(of: dropped, sessions: sessions) == .missingSession(type: "token.issued"))
            let kept = try self.event(type: "token.issued", sessionID: self.sessionID)
            #expect(self.refusal(of: kept, sessions: sessions) == nil)
        }
        let registered = try self.event(type: "user.registered", sessionID: nil)
        #expect(self.refusal(of: registered, sessions: .only([self.sessionID])) == nil, "names no session by nature")
    }
}
