import AuthlogCore
import Foundation
import Testing

/// Member names as JSONEncoder's `convertToSnakeCase` spells them, on the ASCII fast path.
@Suite struct KeyCaseTests {
    struct Sample: Codable, Equatable {
        var accessTokenID = 1
        var nonceTTLSeconds = 2
        var jwksURL = 3
        var sha256Hex = 4
        var plain = 5
        var userAgentLimitXY = 6
    }

    @Test func namesMatchFoundationsSnakeCase() throws {
        let ours = try JSONValue(encoding: Sample()).objectMembers?.map(\.name).sorted()
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let foundation = try JSONSerialization.jsonObject(with: encoder.encode(Sample())) as? [String: Int]
        #expect(ours == foundation?.keys.sorted())
        #expect(ours?.contains("nonce_ttl_seconds") == true)
        #expect(try JSONValue(encoding: Sample()).decode(Sample.self) == Sample())
    }
}
