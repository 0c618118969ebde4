import Foundation
import Testing

/// The module graph of docs/architecture.md, held by the code's own `import` lines: no module imports one of
/// its "never" column, and only one module each owns libpq and libcrypto.
struct ModuleGraphTests {
    /// Each module and the modules it must never import.
    static let forbidden: [String: Set<String>] = [
        "AuthlogCore": [
            "AuthlogCrypto", "AuthlogPostgres", "AuthlogStore", "AuthlogProviders", "AuthlogAccounts", "AuthlogServer",
            "AuthlogTesting", "CLibPQ", "COpenSSL", "Hummingbird",
        ],
        "AuthlogCrypto": [
            "AuthlogPostgres", "AuthlogStore", "AuthlogProviders", "AuthlogAccounts", "AuthlogServer", "Hummingbird",
        ],
        "AuthlogPostgres": [
            "AuthlogStore", "AuthlogCrypto", "AuthlogProviders", "AuthlogAccounts", "AuthlogServer", "Hummingbird",
            "COpenSSL",
        ],
        "AuthlogStore": ["AuthlogProviders", "AuthlogAccounts", "AuthlogServer", "Hummingbird", "COpenSSL", "CLibPQ"],
        "AuthlogProviders": [
            "AuthlogPostgres", "AuthlogStore", "AuthlogAccounts", "AuthlogServer", "Hummingbird", "CLibPQ",
        ],
        "AuthlogAccounts": [
            "AuthlogPostgres", "AuthlogStore", "AuthlogServer", "Hummingbird", "HummingbirdCore", "CLibPQ", "COpenSSL",
        ],
        "AuthlogClient": [
            "AuthlogPostgres", "AuthlogStore", "AuthlogProviders", "AuthlogAccounts", "AuthlogServer", "AuthlogTesting",
            "Hummingbird", "HummingbirdCore", "AsyncHTTPClient", "CLibPQ", "COpenSSL",
        ],
    ]

    /// The module that alone may import each system library.
    static let owners = ["CLibPQ": "AuthlogPostgres", "COpenSSL": "AuthlogCrypto"]

    /// `Sources/`, found from this file's path.
    static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
    }

    /// Every module's imported module names, from each Swift file's `import` lines.
    static func imports() throws -> [String: Set<String>] {
        var found: [String: Set<String>] = [:]
        let modules = try FileManager.default.contentsOfDirectory(atPath: self.sources.path)
        for module in modules {
            let folder = self.sources.appendingPathComponent(module)
            guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    if let imported = self.importedModule(line) { found[module, default: []].insert(imported) }
                }
            }
        }
        return found
    }

    /// The module an `import` line imports (any access level, attributes such as `@testable`, a submodule),
    /// or nil for any other line.
    static func importedModule(_ line: Substring) -> String? {
        let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
        guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
            words[..<index].allSatisfy({ ["public", "internal", "package", "private", "fileprivate"].contains($0) })
        else { return nil }
        return words[index + 1].split(separator: ".").first.map(String.init)
    }

    @Test func noModuleImportsWhatTheGraphForbids() throws {
        let imports = try Self.imports()
        #expect(imports["AuthlogAccounts"]?.contains("AuthlogCore") == true, "the reader found no imports")
        for (module, never) in Self.forbidden {
            let wrong = (imports[module] ?? []).intersection(never)
            #expect(wrong.isEmpty, "\(module) imports \(wrong.sorted()), which docs/architecture.md forbids")
        }
    }

    @Test func onlyOneModuleOwnsEachSystemLibrary() throws {
        let imports = try Self.imports()
        for (library, owner) in Self.owners {
            let importers = imports.filter { $0.value.contains(library) }.map(\.key)
            #expect(importers == [owner], "\(library) is imported by \(importers.sorted()), not only by \(owner)")
        }
    }

    @Test func theReaderSeesEveryFormOfImport() {
        #expect(Self.importedModule("public import AuthlogStore") == "AuthlogStore")
        #expect(Self.importedModule("@testable import AuthlogServer") == "AuthlogServer")
        #expect(Self.importedModule("internal import CLibPQ.Sub") == "CLibPQ")
        #expect(Self.importedModule("import Foundation") == "Foundation")
        #expect(Self.importedModule("// import AuthlogStore") == nil)
        #expect(Self.importedModule("let x = importer") == nil)
    }
}
