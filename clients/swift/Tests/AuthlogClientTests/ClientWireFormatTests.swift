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

    /// A `signin.flagged` entry carries its `alert`: the app shows the intruder's sign-in, with "not me", on
    /// every device of the account. A malformed alert is left out without failing the page.
    @Test func anAlertEntryDecodesItsJudgementsAndABadOneIsIgnored() throws {
        let json = """
            {"activity": [
              {"event_id": "0193a7c2-0000-7000-8000-000000000001", "type": "signin.flagged",
               "time": "2026-11-21T13:06:14Z", "outcome": "success", "reason": "new_country",
               "alert": {"judged_event_id": "0193a7c2-0000-7000-8000-000000000000",
                         "judgements": [{"kind": "new_country"},
                                        {"kind": "impossible_travel", "kilometres": 1150, "seconds": 1800}],
                         "decision": "recorded", "country": "JP", "region": "13", "device_family": "Safari on iOS"}},
              {"event_id": "e-2", "type": "signin.flagged", "time": "2026-11-21T13:06:13Z",
               "alert": {"judgements": "new_device"}},
              {"event_id": "e-3", "type": "token.refresh_failed", "time": "2026-11-21T13:06:12Z",
               "reason": "dpop_wrong_key"}],
             "next": null}
            """
        let page = try JSONDecoder().decode(ActivityPage.self, from: Data(json.utf8))
        #expect(page.entries.count == 3)
        let alert = try #require(page.entries[0].alert)
        #expect(alert.judgements == [.newCountry, .impossibleTravel] && alert.decision == "recorded")
        #expect(alert.judgedEventID == "0193a7c2-0000-7000-8000-000000000000" && alert.wasAdmitted)
        #expect(alert.country == "JP" && alert.region == "13" && alert.deviceFamily == "Safari on iOS")
        #expect(page.entries[0].signinAlert?.eventID == "0193a7c2-0000-7000-8000-000000000001")
        #expect(page.entries[0].reason == "new_country")
        #expect(page.entries[1].alert == nil && page.entries[1].signinAlert == nil)
        #expect(page.entries[2].alert == nil && page.entries[2].reason == "dpop_wrong_key")
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
