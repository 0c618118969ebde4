import AuthlogCore
import Foundation
import Testing

struct CanonicalEventEncodingTests {
    private func event() throws -> EventEnvelope {
        try EventEnvelope(
            SigninFailed(reason: "expired"),
            eventID: UUID(uuidString: "0193A1B2-0000-7000-8000-000000000001") ?? UUID(),
            stream: StreamName(category: "signin", id: "apple"),
            streamVersion: 3,
            occurredAt: Timestamp(microsecondsSinceEpoch: 1_700_000_000_000_001),
            reason: "expired",
            provider: "apple",
            ip: IPAddress("192.0.2.7")
        )
    }

    /// Reads the documented layout back: the tag, then presence byte, big-endian length and bytes per field.
    private static func fields(of bytes: [UInt8]) -> [[UInt8]?] {
        var index = 16
        var fields: [[UInt8]?] = []
        while index < bytes.count {
            if bytes[index] == 0 {
                fields.append(nil)
                index += 1
                continue
            }
            let length = bytes[(index + 1)...(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            fields.append(Array(bytes[(index + 5)..<(index + 5 + length)]))
            index += 5 + length
        }
        return fields
    }

    @Test func theLayoutIsTaggedLengthPrefixedAndInTheDocumentedOrder() throws {
        let bytes = CanonicalEventEncoding.bytes(
            envelope: try self.event(),
            recordedAt: Timestamp(microsecondsSinceEpoch: 5)
        )
        #expect(Array(bytes.prefix(16)) == Array("authlog.event.v2".utf8))
        let text: [String?] = Self.fields(of: bytes).enumerated().map { index, field in
            guard let field else { return nil }
            return index == 12 ? field.map(String.init).joined(separator: ".") : String(decoding: field, as: UTF8.self)
        }
        #expect(
            text == [
                "0193a1b2-0000-7000-8000-000000000001", "signin-apple", "3", "signin.failed", "1700000000000001",
                "5", "failure", "expired", "apple", nil, nil, nil, "192.0.2.7", nil, nil, #"{"reason":"expired"}"#, "1",
            ]
        )
    }

    @Test func everyFieldChangesTheBytes() throws {
        let base = try self.event()
        let reference = CanonicalEventEncoding.bytes(
            envelope: base,
            recordedAt: Timestamp(microsecondsSinceEpoch: 0)
        )
        var variants: [EventEnvelope] = []
        var changed = base
        changed.reason = "expired "
        variants.append(changed)
        changed = base
        changed.ip = IPAddress("192.0.2.8")
        variants.append(changed)
        changed = base
        changed.userAgent = "x"
        variants.append(changed)
        changed = base
        changed.occurredAt = Timestamp(microsecondsSinceEpoch: 1_700_000_000_000_002)
        variants.append(changed)
        changed = base
        changed.data = .object([("reason", .string("expired")), ("x", .null)])
        variants.append(changed)
        for variant in variants {
            #expect(
                CanonicalEventEncoding.bytes(
                    envelope: variant,
                    recordedAt: Timestamp(microsecondsSinceEpoch: 0)
                ) != reference
            )
        }
        #expect(
            CanonicalEventEncoding.legacyBytes(
                position: 2,
                envelope: base,
                recordedAt: Timestamp(microsecondsSinceEpoch: 0)
            )
                != CanonicalEventEncoding.legacyBytes(
                    position: 1,
                    envelope: base,
                    recordedAt: Timestamp(microsecondsSinceEpoch: 0)
                ),
            "the old chain's layout still binds the position"
        )
        #expect(
            CanonicalEventEncoding.bytes(envelope: base, recordedAt: Timestamp(microsecondsSinceEpoch: 1))
                != reference
        )
    }

    @Test func anAbsentFieldDiffersFromAnEmptyOne() throws {
        var absent = try self.event()
        absent.clientID = nil
        // New envelopes never hold an empty value (blank becomes nil); a row read back from the store is taken
        // as it is, so the encoding itself must still tell the two apart.
        let empty = EventEnvelope(
            eventID: absent.eventID,
            stream: absent.stream,
            streamVersion: absent.streamVersion,
            type: absent.type,
            occurredAt: absent.occurredAt,
            outcome: absent.outcome,
            reason: absent.reason,
            provider: absent.provider,
            userID: absent.userID,
            sessionID: absent.sessionID,
            clientID: "",
            ip: absent.ip,
            userAgent: absent.userAgent,
            requestID: absent.requestID,
            data: absent.data,
            schemaVersion: absent.schemaVersion,
            normalizing: false
        )
        let time = Timestamp(microsecondsSinceEpoch: 0)
        #expect(
            CanonicalEventEncoding.bytes(envelope: absent, recordedAt: time)
                != CanonicalEventEncoding.bytes(envelope: empty, recordedAt: time)
        )
    }
}
