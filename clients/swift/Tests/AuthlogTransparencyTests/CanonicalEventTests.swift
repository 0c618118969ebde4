import AuthlogTransparency
import Testing

/// ``CanonicalEvent`` reads back every field of an event's canonical bytes and refuses any other bytes with the
/// field that is wrong. (The server's tests check it against the server's encoder.)
struct CanonicalEventTests {
    let eventID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a00"

    func failure(_ bytes: [UInt8]) -> CanonicalEvent.Failure? {
        do {
            _ = try CanonicalEvent(bytes: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyFieldIsReadBack() throws {
        let event = try CanonicalEvent(bytes: CanonicalBytes.event(eventID: self.eventID))
        #expect(event.eventID == self.eventID)
        #expect(event.stream == "user-0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
        #expect(event.streamVersion == 3 && event.type == "signin.succeeded")
        #expect(event.occurredAtMicroseconds == 1_795_600_000_123_456)
        #expect(event.recordedAtMicroseconds == 1_795_600_000_234_567)
        #expect(event.outcome == "success" && event.reason == nil && event.provider == "apple")
        #expect(event.userID == "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b")
        #expect(event.sessionID == "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c" && event.clientID == "com.example.app")
        #expect(event.ip == [192, 0, 2, 1] && event.userAgent == "Authlog/1.0 (iPhone; café)")
        #expect(event.requestID == "req-1" && event.data == #"{"method":"apple"}"# && event.schemaVersion == 1)
        var fields = CanonicalBytes.fields(eventID: self.eventID, sessionID: nil, userAgent: nil)
        fields[2] = nil
        fields[12] = [UInt8](repeating: 0x20, count: 16)
        let sparse = try CanonicalEvent(bytes: CanonicalBytes.encode(fields))
        #expect(sparse.streamVersion == nil && sparse.sessionID == nil && sparse.userAgent == nil)
        #expect(sparse.ip?.count == 16)
    }

    @Test func bytesCutAtAnyPointAreMalformed() {
        let bytes = CanonicalBytes.event(eventID: self.eventID)
        for count in 0..<bytes.count {
            guard case .malformed = self.failure(Array(bytes.prefix(count))) else {
                Issue.record("\(count) bytes of \(bytes.count) were read as an event")
                continue
            }
        }
        #expect(self.failure(Array(bytes.prefix(16))) == .malformed("the bytes end before the event_id"))
        #expect(self.failure(Array(bytes.prefix(19))) == .malformed("the bytes end inside the event_id's length"))
        #expect(
            self.failure(Array(bytes.prefix(30)))
                == .malformed("the event_id's length 36 runs past the end of the bytes")
        )
        #expect(
            self.failure(Array(bytes.dropLast()))
                == .malformed("the schema_version's length 1 runs past the end of the bytes")
        )
    }

    @Test func eachWrongFieldIsNamed() {
        var fields = CanonicalBytes.fields(eventID: self.eventID)
        var bytes = CanonicalBytes.encode(fields)
        #expect(self.failure(bytes + [0]) == .malformed("bytes follow the last field"))
        #expect(
            self.failure(Array("authlog.event.v1".utf8) + bytes.dropFirst(16))
                == .malformed("the bytes do not start with authlog.event.v2")
        )
        // A length past the end: the stream's length (after the event id's 1 + 4 + 36 bytes) made 2^32 − 1.
        bytes.replaceSubrange(16 + 41 + 1..<16 + 41 + 5, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(self.failure(bytes) == .malformed("the stream's length 4294967295 runs past the end of the bytes"))
        bytes = CanonicalBytes.encode(fields)
        bytes[16] = 2
        #expect(self.failure(bytes) == .malformed("the event_id's presence byte is 2, not 0 or 1"))
        func failure(replacing index: Int, with field: [UInt8]?) -> CanonicalEvent.Failure? {
            var edited = fields
            edited[index] = field
            return self.failure(CanonicalBytes.encode(edited))
        }
        for time in ["12a", "+12", "012", " 12", "", "99999999999999999999"] {
            #expect(
                failure(replacing: 4, with: Array(time.utf8)) == .malformed("the occurred_at is not a decimal integer")
            )
        }
        #expect(failure(replacing: 3, with: nil) == .malformed("the type is absent"))
        #expect(failure(replacing: 16, with: nil) == .malformed("the schema_version is absent"))
        #expect(
            failure(replacing: 0, with: Array(self.eventID.uppercased().utf8))
                == .malformed("the event_id is not a lowercase UUID")
        )
        #expect(
            failure(replacing: 10, with: Array("session".utf8)) == .malformed("the session_id is not a lowercase UUID")
        )
        #expect(failure(replacing: 12, with: [1, 2, 3, 4, 5]) == .malformed("the ip is not 4 or 16 bytes"))
        #expect(failure(replacing: 13, with: [0xC3, 0x28]) == .malformed("the user_agent is not UTF-8 text"))
        fields.removeLast()
        #expect(self.failure(CanonicalBytes.encode(fields)) == .malformed("the bytes end before the schema_version"))
        #expect(
            "\(CanonicalEvent.Failure.malformed("the type is absent"))"
                == "not an event's canonical bytes: the type is absent"
        )
    }
}
