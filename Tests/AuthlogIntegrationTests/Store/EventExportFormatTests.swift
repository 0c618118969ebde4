import AuthlogCore
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

/// The export line PostgreSQL builds carries exactly what the stored event holds, read back through the
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
