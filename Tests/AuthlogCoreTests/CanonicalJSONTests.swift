import AuthlogCore
import Testing

struct CanonicalJSONTests {
    @Test(arguments: [
        ("1.50", "1.5"), ("15e-1", "1.5"), ("-0", "0"), ("0.000", "0"), ("100", "100"), ("1e2", "100"),
        ("1E+2", "100"), ("12345678901234567890", "12345678901234567890"), ("1e20", "100000000000000000000"),
        ("1e21", "1e21"), ("0.0000001", "0.0000001"), ("0.00000001", "1e-8"), ("-12.3400e1", "-123.4"),
        ("123456789012345678901234567890", "12345678901234567890123456789e1"),
    ])
    func numbersAreNormalisedExactly(input: String, canonical: String) throws {
        #expect(try JSONParser().parse(input).canonicalText == canonical)
    }

    @Test func membersAreSortedByUTF8BytesAndWhitespaceDropped() throws {
        let value = try JSONParser().parse(#"{ "b": [1, 2, {"z": null, "a": true}], "a": "x", "é": 1, "Z": false }"#)
        #expect(value.canonicalText == #"{"Z":false,"a":"x","b":[1,2,{"a":true,"z":null}],"é":1}"#)
    }

    @Test func stringsEscapeOnlyQuotesBackslashesAndControls() throws {
        let value = try JSONParser().parse(#"["a\"b\\c\/d\n\u0001\u00e9\ud83d\ude80"]"#)
        #expect(value.canonicalText == "[\"a\\\"b\\\\c/d\\n\\u0001é🚀\"]")
    }

    @Test func canonicalTextParsesBackToTheSameValue() throws {
        let text = #"{"n": 1.0e3, "s": "\u2028 line", "nested": {"list": [0.5, -1, "x"]}}"#
        let value = try JSONParser().parse(text)
        #expect(try JSONParser().parse(value.canonicalText).canonicalText == value.canonicalText)
    }

    @Test(arguments: [
        (#"{"a": 1, "a": 2}"#, JSONParser.Failure.duplicateMember("a")),
        (#"{"alg": "RS256", "alg": "none"}"#, JSONParser.Failure.duplicateMember("alg")),
    ])
    func duplicateMemberNamesAreRefused(input: String, failure: JSONParser.Failure) {
        #expect(throws: failure) { try JSONParser().parse(input) }
    }

    /// Member names are compared by their bytes after unescaping: `\u0061` is `a`, but `é` composed and `e`
    /// with a combining accent are two names (String's `==` would call them equal).
    @Test func memberNamesAreToldApartByTheirBytes() throws {
        #expect(throws: JSONParser.Failure.duplicateMember("a")) { try JSONParser().parse(#"{"a": 1, "\u0061": 2}"#) }
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        let value = try JSONParser().parse(#"{"\#(composed)": 1, "\#(decomposed)": 2, "ab": 3, "ba": 4}"#)
        #expect(value[composed] == .number("1"))
        #expect(value[decomposed] == .number("2"))
        #expect(value["ba"] == .number("4"))
        #expect(value["b"] == nil)
    }

    @Test(arguments: [
        "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "NaN", "'a'", "\"\\x\"", "\"\u{01}\"", "[1] 2", "",
        "\"\\ud800\"", "tru", "{\"a\" 1}", "1e99999",
    ])
    func malformedDocumentsAreRefused(input: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser().parse(input) }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser().parse([0x22, 0xC0, 0xAF, 0x22]) }
        #expect(throws: JSONParser.Failure.self) { try JSONParser().parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }
    }

    @Test func nestingBeyondTheLimitIsRefused() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParser.Failure.tooDeep) { try JSONParser(maximumDepth: 64).parse(deep) }
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONParser(maximumDepth: 64).parse(fine) }
    }
}
