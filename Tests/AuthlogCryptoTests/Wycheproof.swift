import AuthlogCore
import Foundation
import Testing

/// Loads Wycheproof files from `../shared/test-vectors/wycheproof/` beside the project. Under `CI=true`
/// a missing file is a failure; otherwise the tests are skipped with the reason printed.
enum Wycheproof {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/test-vectors/wycheproof")

    struct Case {
        let id: Int
        let comment: String
        let flags: [String]
        let result: String
        let fields: JSONValue
        let group: JSONValue

        func bytes(_ name: String) -> [UInt8] { Hex.decode(self.fields[name]?.stringValue ?? "") ?? [] }
    }

    /// Every test of `file`, or `nil` (after recording a failure under CI) when the file is missing.
    static func cases(_ file: String) throws -> [Case]? {
        let url = self.folder.appendingPathComponent(file)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("Wycheproof vectors missing at \(url.path); CI requires them")
            } else {
                print("skipping Wycheproof \(file): not found at \(url.path)")
            }
            return nil
        }
        let document = try JSONParser(maximumDepth: 16).parse(Array(data))
        guard case .array(let groups)? = document["testGroups"] else { return [] }
        var cases: [Case] = []
        for group in groups {
            guard case .array(let tests)? = group["tests"] else { continue }
            for test in tests {
                var flags: [String] = []
                if case .array(let values)? = test["flags"] { flags = values.compactMap(\.stringValue) }
                cases.append(
                    Case(
                        id: Int(test["tcId"].flatMap { if case .number(let n) = $0 { n } else { nil } } ?? "") ?? 0,
                        comment: test["comment"]?.stringValue ?? "",
                        flags: flags,
                        result: test["result"]?.stringValue ?? "",
                        fields: test,
                        group: group
                    )
                )
            }
        }
        return cases
    }
}
