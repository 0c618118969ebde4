import AuthlogCore
import AuthlogTransparency
import Foundation
import Testing

/// The server's encoder (`CanonicalEventEncoding`, AuthlogCore) and the device's parser (`CanonicalEvent`,
/// AuthlogTransparency) agree: every envelope encoded here reads back field for field there.
struct CanonicalEventParserTests {
    static let user = UUID(uuidString: "0193A1B2-0000-7000-8000-0000000000AA") ?? UUID()
    static let session = UUID(uuidString: "0193A1B2-0000-7000-8000-0000000000BB") ?? UUID()

    /// Envelopes of several types: with and without the optional fields, IPv4 and IPv6, a non-ASCII user agent.
    static func envelopes() throws -> [EventEnvelope] {
        [
            try EventEnvelope(
                SigninSucceeded(method: "id_token", subjectHash: "ab12", nonceCheck: "matched", isNewUser: true),
                stream: StreamName(category: "session", id: Self.session.lowercased),
                streamVersion: 1,
                occurredAt: Timestamp(microsecondsSinceEpoch: 1_795_600_000_000_001),
                provider: "apple",
                userID: Self.user,
                sessionID: Self.session,
                clientID: "com.example.app",
                ip: IPAddress("192.0.2.7"),
                userAgent: "Authlog/2.0 (iPhone; Zürich 東京) ✓",
                requestID: "req-7"
            ),
            try EventEnvelope(
                SessionLoggedOut(scope: .all),
                stream: StreamName(category: "session", id: Self.session.lowercased),
                userID: Self.user,
                sessionID: Self.session,
                ip: IPAddress("2001:db8::1")
            ),
            try EventEnvelope(
                SigninFailed(reason: "expired"),
                stream: StreamName(category: "signin", id: "apple"),
                occurredAt: Timestamp(microsecondsSinceEpoch: 0),
                reason: "expired"
            ),
            EventEnvelope(
                stream: StreamName(category: "user", id: Self.user.lowercased),
                type: .accountDeleted,
                occurredAt: Timestamp(microsecondsSinceEpoch: -1),
                userID: Self.user,
                data: .object([("b", .number("1.50")), ("a", .array([.string("x\n"), .null]))]),
                schemaVersion: 3
            ),
        ]
    }

    @Test func everyEncodedEnvelopeParsesBackFieldForField() throws {
        let recordedAt = Timestamp(microsecondsSinceEpoch: 1_795_600_000_999_999)
        for envelope in try Self.envelopes() {
            let event = try CanonicalEvent(
                bytes: CanonicalEventEncoding.bytes(envelope: envelope, recordedAt: recordedAt)
            )
            #expect(event.eventID == envelope.eventID.lowercased)
            #expect(event.stream == envelope.stream.rawValue)
            #expect(event.streamVersion == envelope.streamVersion.map(Int64.init))
            #expect(event.type == envelope.type.rawValue)
            #expect(event.occurredAtMicroseconds == envelope.occurredAt.microsecondsSinceEpoch)
            #expect(event.recordedAtMicroseconds == recordedAt.microsecondsSinceEpoch)
            #expect(event.outcome == envelope.outcome.rawValue)
            #expect(event.reason == envelope.reason && event.provider == envelope.provider)
            #expect(event.userID == envelope.userID?.lowercased && event.sessionID == envelope.sessionID?.lowercased)
            #expect(event.clientID == envelope.clientID && event.ip == envelope.ip?.bytes)
            #expect(event.userAgent == envelope.userAgent && event.requestID == envelope.requestID)
            #expect(event.data == envelope.data.canonicalText)
            #expect(event.schemaVersion == Int64(envelope.schemaVersion))
        }
    }

    /// The old chain's layout (`authlog.event.v1`, the position first) is not what receipts carry.
    @Test func theLegacyLayoutIsRefused() throws {
        let envelope = try #require(try Self.envelopes().first)
        let legacy = CanonicalEventEncoding.legacyBytes(
            position: 7,
            envelope: envelope,
            recordedAt: Timestamp(microsecondsSinceEpoch: 1)
        )
        #expect(throws: CanonicalEvent.Failure.malformed("the bytes do not start with authlog.event.v2")) {
            try CanonicalEvent(bytes: legacy)
        }
    }
}
