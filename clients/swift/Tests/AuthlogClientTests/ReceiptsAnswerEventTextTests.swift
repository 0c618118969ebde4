import AuthlogTransparency
import Foundation
import Testing

@testable import AuthlogClient

/// `event_text` carries any bytes, one character per byte, through JSON as the server writes it (control
/// characters escaped, bytes above 0x7F as two-byte UTF-8) and reads back the same bytes as `event` in base64.
struct ReceiptsAnswerEventTextTests {
    static let id = "0190a1b2-c3d4-7e5f-8a9b-000000000001"

    func parse(_ receipt: [String: Any]) throws -> [UInt8] {
        var member = receipt
        member["event_id"] = Self.id
        member["index"] = 0
        let object: [String: Any] = [
            "checkpoint": "log\n1\nAAAA\n\n— log AAAA\n", "witnessed": "none", "receipts": [member],
            "proof": "",
        ]
        let data = try JSONSerialization.data(withJSONObject: object)
        let answer = try ReceiptsAnswer.parse(data, asked: [Self.id], limit: 1 << 20)
        return try #require(answer.batch.entries.first).eventBytes
    }

    @Test func everyByteValueRoundTripsAsTextAndAsBase64() throws {
        let bytes = (0...255).map { UInt8($0) } + Array("authlog.event.v2 \"quoted\" \\ back".utf8)
        #expect(try self.parse(["event_text": EventText.text(of: bytes)]) == bytes)
        #expect(try self.parse(["event": Data(bytes).base64EncodedString()]) == bytes)
        // The JSON text the server writes (its escapes: \u0000, \n, \", \\) reads the same.
        let receipt = #"{"event_id":"\#(Self.id)","index":0,"event_text":"a\u0000\n\"\\é\u00ff"}"#
        let written = Data(#"{"checkpoint":"c","witnessed":"none","proof":"","receipts":[\#(receipt)]}"#.utf8)
        let answer = try ReceiptsAnswer.parse(written, asked: [Self.id], limit: 1 << 20)
        #expect(answer.batch.entries.first?.eventBytes == [0x61, 0x00, 0x0A, 0x22, 0x5C, 0xE9, 0xFF])
    }
}
