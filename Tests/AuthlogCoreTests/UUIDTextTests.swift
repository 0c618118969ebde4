import AuthlogCore
import Foundation
import Testing

/// A uuid's text both ways: `lowercased` spells it as Foundation does (in lower case), and `UUID(canonical:)`,
/// the parser every read path decodes ids with, reads what Foundation's `UUID(uuidString:)` reads in the
/// canonical form and refuses everything else.
struct UUIDTextTests {
    @Test func lowercasedMatchesFoundationsSpelling() {
        for _ in 0..<200 {
            let id = UUID()
            #expect(id.lowercased == id.uuidString.lowercased())
        }
    }

    @Test func itReadsWhatPostgreSQLPrintsAndWhatFoundationPrints() {
        for _ in 0..<200 {
            let id = UUID()
            #expect(UUID(canonical: id.lowercased) == id)
            #expect(UUID(canonical: id.uuidString) == id, "uppercase, as Foundation prints it")
        }
        let zero = "00000000-0000-0000-0000-000000000000"
        #expect(UUID(canonical: zero)?.lowercased == zero)
        let mixed = "FFFFFFFF-ffff-FFFF-ffff-FFFFFFFFFFFF"
        #expect(UUID(canonical: mixed)?.lowercased == mixed.lowercased())
    }

    @Test(arguments: [
        "",
        "602aa54b-1396-4a05-9b31-0746f41f77d",  // one digit short
        "602aa54b-1396-4a05-9b31-0746f41f77dee",  // one digit long
        "602aa54b13964a059b310746f41f77de",  // no dashes
        "602aa54b-13964-a05-9b31-0746f41f77de",  // a dash misplaced
        "602aa54g-1396-4a05-9b31-0746f41f77de",  // not hex
        "{602aa54b-1396-4a05-9b31-0746f41f77d}",  // braces
        "602aa54b-1396-4a05-9b31-0746f41f77dé",  // 36 characters, 37 bytes
    ])
    func itRefusesWhatFoundationRefuses(_ text: String) {
        #expect(UUID(canonical: text) == nil)
        #expect(UUID(uuidString: text) == nil, "the same verdict as Foundation's")
    }

    /// 36 characters that Foundation's `sscanf` reads on Linux (a space, a sign before a pair) and this parser
    /// does not: an id is its canonical form or nothing.
    @Test(arguments: [
        " 602aa54b-1396-4a05-9b31-0746f41f77d",
        "+02aa54b-1396-4a05-9b31-0746f41f77de",
        "-12aa54b-1396-4a05-9b31-0746f41f77de",
    ])
    func itRefusesWhatOnlyScanfReads(_ text: String) {
        #expect(text.utf8.count == 36)
        #expect(UUID(canonical: text) == nil)
    }
}
