import AuthlogClient
import Foundation
import Testing

/// The session-list and activity answers decoded as the routes' contract gives them, without a server.
struct ClientWireFormatTests {
    @Test func sessionsDecodeWithNullsAndMicrosecondTimes() throws {
        let json = """
            {"session_id": "s-1", "provider": "apple", "user_agent": null, "ip": null,
             "started_at": "2026-11-21T13:06:14.123456Z", "last_refreshed_at": null, "current": true}
            """
        let session = try JSONDecoder().decode(SessionInfo.self, from: Data(json.utf8))
        #expect(session.id == "s-1" && session.provider == "apple" && session.isCurrent)
        #expect(session.userAgent == nil && session.ip == nil && session.lastRefreshedAt == nil)
        #expect(abs(session.startedAt.timeIntervalSince1970 - 1_795_266_374.123456) < 0.000_001)
    }

    @Test func activityPagesDecodeAndTheLastHasNoCursor() throws {
        let json = """
            {"activity": [{"event_id": "e-1", "type": "signin.succeeded", "time": "2026-11-21T13:06:14Z",
                           "provider": "dev", "ip": "127.0.0.1", "user_agent": "UA", "outcome": "success",
                           "receipt_url": "/v1/log/receipt/e-1"}],
             "next": null}
            """
        let page = try JSONDecoder().decode(ActivityPage.self, from: Data(json.utf8))
        #expect(page.next == nil)
        #expect(page.entries.map(\.id) == ["e-1"])
        #expect(page.entries.first?.time == Date(timeIntervalSince1970: 1_795_266_374))
        #expect(page.entries.first?.receiptURL == "/v1/log/receipt/e-1")
    }

    @Test func timesNotInAuthlogsFormAreRefused() {
        for text in [
            "2026-11-21 13:06:14Z", "2026-11-21T13:06:14", "2026-13-21T13:06:14Z", "2026-11-21T13:06:14.Z",
            "2026-11-21T13:06:14.1234567890123456789012345Z",
        ] {
            let json = """
                {"session_id": "s", "provider": "p", "started_at": "\(text)", "current": false}
                """
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(SessionInfo.self, from: Data(json.utf8))
            }
        }
    }
}
