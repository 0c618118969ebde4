import AuthlogCore
import Testing

struct IngestValidationTests {
    private func ingest(_ text: String) throws -> EventEnvelope {
        try EventEnvelope(ingesting: JSONParser().parse(text))
    }

    private let userID = "0193a1b2-0000-7000-8000-000000000001"
    private let sessionID = "0193a1b2-0000-7000-8000-000000000002"

    @Test func aCompleteSigninIsAccepted() throws {
        let event = try self.ingest(
            """
            {"type":"signin.succeeded","stream":"session-\(self.sessionID)","occurred_at":"2026-11-01T10:00:00Z",
             "outcome":"success","provider":"apple","user_id":"\(self.userID)","session_id":"\(self.sessionID)",
             "ip":"2001:db8::1","user_agent":"\(String(repeating: "é", count: 400))",
             "data":{"method":"id_token","subject_hash":"ab","is_new_user":false}}
            """
        )
        #expect(event.type == .signinSucceeded)
        #expect(event.streamVersion == nil)
        #expect(event.userAgent?.utf8.count == 512)
        #expect(event.ip?.bytes.count == 16)
        #expect(try event.payload(as: SigninSucceeded.self).subjectHash == "ab")
    }

    @Test(arguments: [
        (
            #"{"type":"signin.failed","stream":"signin-apple","occurred_at":"2026-11-01T10:00:00Z","provider":"apple","data":{"reason":"x"}}"#,
            "reason is required for signin.failed"
        ),
        (
            #"{"type":"signin.failed","stream":"user-1","occurred_at":"2026-11-01T10:00:00Z","provider":"apple","reason":"x","data":{"reason":"x"}}"#,
            "stream must be in category signin for signin.failed"
        ),
        (
            #"{"type":"signin.failed","stream":"signin-google","occurred_at":"2026-11-01T10:00:00Z","provider":"apple","reason":"x","data":{"reason":"x"}}"#,
            "stream must be signin-<provider>"
        ),
        (
            #"{"type":"signin.failed","stream":"signin-apple","occurred_at":"2026-11-01T10:00:00Z","provider":"apple","reason":"x","data":{}}"#,
            "data does not fit signin.failed: missing reason"
        ),
        (
            #"{"type":"signin.failed","stream":"signin-apple","occurred_at":"2026-11-01T10:00:00Z","provider":"apple","reason":"x","outcome":"success","data":{"reason":"x"}}"#,
            "outcome must be failure for signin.failed"
        ),
        (
            #"{"type":"signin.failed","stream":"signin-apple","occurred_at":"yesterday","provider":"apple","reason":"x","data":{"reason":"x"}}"#,
            "occurred_at must be an ISO 8601 timestamp"
        ),
        (
            #"{"type":"signin.failed","stream":"signin-apple","occurred_at":"2026-11-01T10:00:00Z","provider":"apple","reason":"x","ip":"10.0.0.0/8","data":{"reason":"x"}}"#,
            "ip must be an IPv4 or IPv6 host address"
        ),
        (
            #"{"type":"signin.failed","stream":"signin-apple","occurred_at":"2026-11-01T10:00:00Z","provider":"apple","reason":"x","hash":"00","data":{"reason":"x"}}"#,
            "hash is set by authlog"
        ),
        (
            #"{"type":"signin.failed","stream":"signin-apple","occurred_at":"2026-11-01T10:00:00Z","provider":"apple","reason":"x","colour":"red","data":{"reason":"x"}}"#,
            "colour is not an envelope field"
        ),
        // Found by the fuzz suite: a member with an empty name was refused with an empty field name.
        (
            #"{"type":"signin.failed","stream":"signin-apple","occurred_at":"2026-11-01T10:00:00Z","provider":"apple","reason":"x","":1,"data":{"reason":"x"}}"#,
            #""" is not an envelope field"#
        ),
        (
            #"{"type":"signin.failed","stream":"signin-apple","occurred_at":"2026-11-01T10:00:00Z","provider":"apple","reason":"x","a\u0000b":1,"data":{"reason":"x"}}"#,
            #"a\u{0}b is not an envelope field"#
        ),
        (
            #"{"type":"signin.failed","stream":"signin-apple","occurred_at":"2026-11-01T10:00:00Z","provider":"apple","reason":"x","stream_version":0,"data":{"reason":"x"}}"#,
            "stream_version must be a whole number from 1 to 2147483647"
        ),
        (
            #"{"type":"signin.failed","stream":"signin-apple","occurred_at":"2026-11-01T10:00:00Z","provider":"apple","reason":"x","data":{"reason":"a\u0000b"}}"#,
            "data contains U+0000"
        ),
        (
            #"{"type":"signin.failed","stream":"Signin-apple","occurred_at":"2026-11-01T10:00:00Z","provider":"apple","reason":"x","data":{"reason":"x"}}"#,
            "stream must be category-id with a camelCase category"
        ),
    ])
    func invalidEventsAreRefusedWithTheReason(input: String, message: String) {
        #expect(throws: EventValidationError.self) { try self.ingest(input) }
        do {
            _ = try self.ingest(input)
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test func sessionEventsMustNameTheirOwnSession() {
        let other = "0193a1b2-0000-7000-8000-0000000000ff"
        #expect(throws: EventValidationError(field: "stream", problem: "must be session-<session_id>")) {
            try self.ingest(
                """
                {"type":"session.logged_out","stream":"session-\(other)","occurred_at":"2026-11-01T10:00:00Z","outcome":"success",
                 "user_id":"\(self.userID)","session_id":"\(self.sessionID)","data":{"scope":"this"}}
                """
            )
        }
    }

    @Test func refreshTokenHashesMustBe32Bytes() {
        #expect(throws: EventValidationError(field: "data.new_token_hash", problem: "must be 64 hex digits")) {
            try self.ingest(
                """
                {"type":"token.refreshed","stream":"session-\(self.sessionID)","occurred_at":"2026-11-01T10:00:00Z",
                 "user_id":"\(self.userID)","session_id":"\(self.sessionID)","data":{"old_token_id":"\(self.userID)",
                 "new_token_id":"\(self.sessionID)","new_token_hash":"abcd","family_id":"\(self.userID)",
                 "refresh_token_expires_at":"2026-12-01T00:00:00Z","access_token_id":"\(self.userID)",
                 "access_token_expires_at":"2026-11-01T10:15:00Z","kind":"remember_me"}}
                """
            )
        }
    }
}
