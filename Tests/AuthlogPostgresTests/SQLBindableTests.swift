import AuthlogCore
import AuthlogPostgres
import Foundation
import Testing

/// The text forms values are bound and read in, without a server.
struct SQLBindableTests {
    @Test func scalarsUsePostgreSQLsTextInputForms() throws {
        #expect(true.sqlText == "t")
        #expect(false.sqlText == "f")
        #expect(Int64(-9_000_000_000).sqlText == "-9000000000")
        let id = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(id.sqlText == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
    }

    @Test func byteaIsSentAndReadInHexForm() throws {
        let value = ByteaValue([0x00, 0x0a, 0xff])
        #expect(value.sqlText == "\\x000aff")
        #expect(try ByteaValue.decode(sqlText: value.sqlText, column: "b").bytes == [0x00, 0x0a, 0xff])
        #expect(throws: StoreError.self) { try ByteaValue.decode(sqlText: "000aff", column: "b") }
    }

    @Test func arrayLiteralsQuoteEveryElementAndEscapeQuotesAndBackslashes() {
        #expect(ArrayLiteral(["a", "b\"c", "d\\e"]).sqlText == #"{"a","b\"c","d\\e"}"#)
        #expect(ArrayLiteral([nil, "NULL"]).sqlText == #"{NULL,"NULL"}"#)
        #expect(ArrayLiteral([String?]()).sqlText == "{}")
        #expect(ArrayLiteral([1, 2]).sqlText == #"{"1","2"}"#)
    }

    @Test func decodingRefusesNullAndWrongFormsWithADecodingError() throws {
        #expect(try Int.decode(sqlText: "42", column: "n") == 42)
        #expect(try Bool.decode(sqlText: "t", column: "b"))
        #expect(try Int?.decode(sqlText: nil, column: "n") == nil)
        let null = #expect(throws: StoreError.self) { try Int.decode(sqlText: nil, column: "n") }
        #expect(null?.code == .decoding)
        #expect(null?.description == "decoding_failed: column n is NULL")
        let wrong = #expect(throws: StoreError.self) { try Int.decode(sqlText: "4x2", column: "n") }
        #expect(wrong?.code == .decoding)
    }
}
