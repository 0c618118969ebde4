import AuthlogCore
import Testing

/// The one normalising rule for envelope text: blank → nil, control characters escaped, long values cut.
struct EnvelopeTextTests {
    @Test(arguments: ["", " ", "\t", "\n \r", "\u{3000}"])
    func blankBecomesNil(value: String) {
        #expect(EnvelopeText.normalized(value, limit: 64) == nil)
    }

    @Test func controlCharactersAreEscaped() {
        #expect(EnvelopeText.normalized("a\u{0}b", limit: 64) == "a\\u{0}b")
        #expect(EnvelopeText.normalized("x\u{1B}[31m\u{7F}\u{85}", limit: 64) == "x\\u{1B}[31m\\u{7F}\\u{85}")
        #expect(EnvelopeText.normalized("tab\there", limit: 64) == "tab\\u{9}here")
        #expect(EnvelopeText.normalized("Mozilla/5.0 (iPhone) 한국어", limit: 64) == "Mozilla/5.0 (iPhone) 한국어")
    }

    @Test func longValuesAreCutAtACharacterBoundary() {
        let value = String(repeating: "é", count: 300)
        let cut = EnvelopeText.normalized(value, limit: 101)
        #expect(cut?.utf8.count == 100)
        #expect(cut == String(repeating: "é", count: 50))
        // An escape is counted after escaping, so the result still fits.
        #expect(EnvelopeText.normalized(String(repeating: "\u{0}", count: 100), limit: 20)?.utf8.count ?? 0 <= 20)
    }

    @Test func theEnvelopeKeepsEveryTextColumnNormalised() throws {
        var envelope = EventEnvelope(
            stream: StreamName(category: "signin", id: "apple"),
            type: .signinFailed,
            outcome: .failure,
            reason: "bad",
            provider: "apple",
            clientID: "",
            userAgent: "  ",
            requestID: "r\u{0}",
            data: .object([("reason", .string("bad"))])
        )
        #expect(envelope.clientID == nil)
        #expect(envelope.userAgent == nil)
        #expect(envelope.requestID == "r\\u{0}")
        envelope.clientID = "com.example\u{0}"
        envelope.userAgent = String(repeating: "a", count: 2_000)
        envelope.reason = " "
        #expect(envelope.clientID == "com.example\\u{0}")
        #expect(envelope.userAgent?.utf8.count == EnvelopeText.Limit.userAgent)
        #expect(envelope.reason == nil)
        let error = #expect(throws: EventValidationError.self) { try envelope.validate() }
        #expect(error?.field == "reason")
    }
}
