import AuthlogCore
import AuthlogPostgres
import AuthlogTesting
import Foundation
import Testing

@testable import AuthlogStore

/// The export line carries exactly what the stored event holds, read back through the
/// store's own decoding.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct EventExportFormatTests {
    @Test func everyMemberOfTheExportLineEqualsTheStoredEvent() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        let tricky = "Agent \"quoted\" \\ back/slash 한국어 🚀 tab\there"
        let full = EventEnvelope(
            stream: StreamName(category: "signin", id: "apple"),
            type: .signinFailed,
            occurredAt: Timestamp(microsecondsSinceEpoch: 1_790_000_000_123_456),
            outcome: .failure,
            reason: "expired",
            provider: "apple",
            userID: UUID(),
            sessionID: UUID(),
            clientID: "com.example.app",
            ip: IPAddress("2001:db8::7"),
            userAgent: tricky,
            requestID: "req-1",
            data: .members([
                "reason": .string("expired"),
                "nested": .members(["null": .null, "list": .array([.number("1.5"), .bool(true)])]),
                "text": .string(tricky),
            ])
        )
        let sparse = EventEnvelope(
            stream: StreamName(category: "signin", id: "google"),
            type: .signinFailed,
            outcome: .failure,
            reason: "expired",
            provider: "google",
            data: .members(["reason": .string("expired")])
        )
        _ = await store.appendSealed([AppendCommand(full), AppendCommand(sparse)])
        let connection = try await database.connect()
        let stored = try await EventReader().events(after: 0, limit: 10, on: connection)
        let page = try await EventReader().page(after: 0, limit: 10, filter: EventFilter(), on: connection)
        #expect(page.events.count == 2 && stored.count == 2)
        for (line, event) in zip(page.events, stored) {
            let json = try JSONParser().parse(Array(line.json.utf8))
            let envelope = event.envelope
            #expect(line.position == event.position)
            #expect(json["position"]?.canonicalText == String(event.position))
            #expect(json["event_id"]?.stringValue == envelope.eventID.lowercased)
            #expect(json["stream"]?.stringValue == envelope.stream.rawValue)
            #expect(json["stream_version"]?.canonicalText == String(event.streamVersion))
            #expect(json["type"]?.stringValue == envelope.type.rawValue)
            let owasp = envelope.type.owaspName(outcome: envelope.outcome, reason: envelope.reason)
            #expect(owasp == "authn_login_fail" && json["owasp"]?.stringValue == owasp)
            #expect(json["occurred_at"]?.stringValue == envelope.occurredAt.description)
            #expect(json["outcome"]?.stringValue == envelope.outcome.rawValue)
            #expect(json["reason"]?.stringValue == envelope.reason)
            #expect(json["provider"]?.stringValue == envelope.provider)
            #expect(json["user_id"]?.stringValue == envelope.userID?.lowercased)
            #expect(json["session_id"]?.stringValue == envelope.sessionID?.lowercased)
            #expect(json["client_id"]?.stringValue == envelope.clientID)
            #expect(json["ip"]?.stringValue == envelope.ip?.description)
            #expect(json["user_agent"]?.stringValue == envelope.userAgent)
            #expect(json["request_id"]?.stringValue == envelope.requestID)
            #expect(json["data"] == envelope.data)
            #expect(json["schema_version"]?.canonicalText == String(envelope.schemaVersion))
            #expect(json["recorded_at"]?.stringValue == event.recordedAt.description)
            #expect(json["digest"]?.stringValue == Hex.encode(event.digest))
            #expect(json["leaf_hash"]?.stringValue == Hex.encode(event.leafHash))
            if case .object(let members) = json {
                let absent = members.filter { $0.value.isNull }.map(\.name)
                #expect(absent.isEmpty, "unset members are left out, not null: \(absent)")
            }
        }
        #expect(try JSONParser().parse(Array(page.events[0].json.utf8))["user_agent"]?.stringValue == full.userAgent)
        #expect(full.userAgent?.contains("\"quoted\" \\ back/slash 한국어 🚀") == true, "the hard characters survive")
    }
}

/// The export's `owasp` member: the OWASP Logging Vocabulary name beside `type`
/// (`EventType.owaspName(outcome:reason:)`), left out when there is none, and outside the digest.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct EventExportVocabularyTests {
    @Test func theNameStandsBesideTheTypeAndIsLeftOutWhenThereIsNone() async throws {
        let database = try await TestDatabase.make()
        let store = PostgresEventStore(pool: ConnectionPool(conninfo: database.conninfo))
        let session = UUID()
        let user = UUID()
        func sessionEvent(_ type: EventType, _ outcome: Outcome, reason: String?, data: JSONValue) -> EventEnvelope {
            EventEnvelope(
                stream: StreamName(category: "session", id: session.lowercased),
                type: type,
                outcome: outcome,
                reason: reason,
                userID: user,
                sessionID: session,
                data: data
            )
        }
        let family = UUID()
        let events = [
            // A refresh refused for a revoked token: `authn_token_reuse`.
            sessionEvent(
                .tokenRefreshFailed,
                .failure,
                reason: "revoked",
                data: .members(["reason": .string("revoked")])
            ),
            // A spent token retried within the grace window: no name.
            sessionEvent(
                .tokenRefreshReplayed,
                .success,
                reason: nil,
                data: .members([
                    "token_id": .string(UUID().lowercased), "family_id": .string(family.lowercased),
                    "refreshed_event_id": .string(UUID().lowercased), "new_token_id": .string(UUID().lowercased),
                    "access_token_id": .string(UUID().lowercased),
                ])
            ),
        ]
        for result in await store.appendSealed([AppendCommand(events: events)]) { _ = try result.get() }
        let connection = try await database.connect()
        let page = try await EventReader().page(after: 0, limit: 10, filter: EventFilter(), on: connection)
        let stored = try await EventReader().events(after: 0, limit: 10, on: connection)
        try #require(page.events.count == 2 && stored.count == 2)
        let reuse = try JSONParser().parse(Array(page.events[0].json.utf8))
        #expect(reuse["type"]?.stringValue == "token.refresh_failed")
        #expect(reuse["owasp"]?.stringValue == "authn_token_reuse")
        let names = reuse.objectMembers?.map(\.name) ?? []
        let typeIndex = try #require(names.firstIndex(of: "type"))
        #expect(names.dropFirst(typeIndex + 1).first == "owasp", "owasp follows type: \(names)")
        let replay = try JSONParser().parse(Array(page.events[1].json.utf8))
        #expect(replay["type"]?.stringValue == "token.refresh_replayed")
        #expect(replay["owasp"] == nil, "no vocabulary name: the member is left out, not null")
        // Not part of the canonical bytes: the stored digest is that of the envelope alone.
        for (line, event) in zip(page.events, stored) {
            let json = try JSONParser().parse(Array(line.json.utf8))
            let digest = EventRow.digest(of: event.envelope, recordedAt: event.recordedAt)
            #expect(json["digest"]?.stringValue == Hex.encode(digest))
        }
    }
}
