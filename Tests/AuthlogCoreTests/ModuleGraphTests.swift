import Foundation
import Testing

/// The module graph of docs/architecture.md, held by the code's own `import` lines under `Sources/` and
/// `clients/swift/Sources/`: no module imports one of its "never" column, the verification core imports
/// Foundation alone, only one module each owns libpq, the server's libcrypto and zlib, and only AuthlogClient's
/// platform adapters import the client's crypto (its own libcrypto module on Linux, CryptoKit on Apple platforms).
struct ModuleGraphTests {
    /// The server's modules, the C libraries and the server's packages: none of them may reach an app.
    static let server: Set<String> = [
        "AuthlogCore", "AuthlogCrypto", "AuthlogPostgres", "AuthlogStore", "AuthlogProviders", "AuthlogAccounts",
        "AuthlogServer", "AuthlogWitness", "AuthlogPlaces", "AuthlogTesting", "CLibPQ", "COpenSSL", "CZlib",
        "CMaxMindDB", "Hummingbird",
        "HummingbirdCore", "AsyncHTTPClient", "NIOCore", "NIOPosix", "NIOHTTP1", "Logging", "ServiceLifecycle",
        "ArgumentParser",
    ]

    /// Each module and the modules it must never import.
    static let forbidden: [String: Set<String>] = [
        "AuthlogCore": [
            "AuthlogCrypto", "AuthlogPostgres", "AuthlogStore", "AuthlogProviders", "AuthlogAccounts", "AuthlogServer",
            "AuthlogTesting", "AuthlogTransparency", "CLibPQ", "COpenSSL", "Hummingbird",
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
        // The MaxMind DB reader knows addresses and places, nothing of the log, the database or HTTP.
        "AuthlogPlaces": [
            "AuthlogCrypto", "AuthlogPostgres", "AuthlogStore", "AuthlogProviders", "AuthlogAccounts", "AuthlogServer",
            "Hummingbird", "CLibPQ", "COpenSSL", "CZlib",
        ],
        "AuthlogAccounts": [
            "AuthlogPostgres", "AuthlogStore", "AuthlogServer", "Hummingbird", "HummingbirdCore", "CLibPQ", "COpenSSL",
        ],
        "AuthlogWitness": [
            "AuthlogPostgres", "AuthlogStore", "AuthlogServer", "AuthlogAccounts", "AuthlogProviders", "AuthlogTesting",
            "CLibPQ", "COpenSSL",
        ],
        "AuthlogClient": Self.server,
        // The tests' second client process stands for an app: none of the server reaches it either.
        "AuthlogClientProbe": Self.server,
    ]

    /// The modules that may import only what is listed: the verification core is Foundation and the C library's
    /// POSIX calls (for ``DurableFile``: glibc, musl for the static Linux SDK, Android's Bionic, Darwin), nothing of
    /// ours, no C library, no Crypto or CryptoKit, no NIO, Hummingbird, AsyncHTTPClient or database.
    static let allowedOnly: [String: Set<String>] = [
        "AuthlogTransparency": ["Foundation", "Glibc", "Musl", "Android", "Darwin"]
    ]

    /// The module that alone may import each system library.
    static let owners = [
        "CLibPQ": "AuthlogPostgres", "COpenSSL": "AuthlogCrypto", "CZlib": "AuthlogServer",
        "CMaxMindDB": "AuthlogPlaces",
    ]

    /// The files (module folder and path) that alone may import each of the client's crypto modules: the
    /// client's libcrypto module in its Linux adapters (hashing and signatures, the DPoP key); CryptoKit, and
    /// swift-crypto's Crypto (only when the test-only target CryptoKitAPIOnSwiftCrypto compiles those files), in
    /// its Apple adapters.
    static let fileOwners: [String: Set<String>] = [
        "CLibcrypto": [
            "AuthlogClient/Crypto/LibcryptoClientCrypto.swift", "AuthlogClient/Crypto/LibcryptoP256Key.swift",
        ],
        "CryptoKit": [
            "AuthlogClient/Crypto/CryptoKitClientCrypto.swift", "AuthlogClient/Crypto/CryptoKitP256Key.swift",
        ],
        "Crypto": ["AuthlogClient/Crypto/CryptoKitClientCrypto.swift", "AuthlogClient/Crypto/CryptoKitP256Key.swift"],
    ]

    /// The repository, found from this file's path.
    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The folders whose subfolders are modules: the server's and the client package's.
    static var sourceFolders: [URL] {
        [
            self.repository.appendingPathComponent("Sources"),
            self.repository.appendingPathComponent("clients/swift/Sources"),
        ]
    }

    /// Every Swift file's imported module names, from its `import` lines, keyed by module folder and path
    /// (`AuthlogClient/Crypto/ClientCrypto.swift`).
    static func imports() throws -> [String: Set<String>] {
        var found: [String: Set<String>] = [:]
        for sources in self.sourceFolders {
            for module in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
                let folder = sources.appendingPathComponent(module)
                guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
                for case let file as String in files where file.hasSuffix(".swift") {
                    let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                    for line in text.split(separator: "\n") {
                        if let imported = self.importedModule(line) {
                            found["\(module)/\(file)", default: []].insert(imported)
                        }
                    }
                }
            }
        }
        return found
    }

    /// Each module's imported module names, from its files' (`files` as ``imports()`` gives them).
    static func modules(_ files: [String: Set<String>]) -> [String: Set<String>] {
        var modules: [String: Set<String>] = [:]
        for (file, imported) in files {
            let module = String(file.prefix { $0 != "/" })
            modules[module, default: []].formUnion(imported)
        }
        return modules
    }

    /// The module an `import` line imports (any access level, attributes such as `@testable`, a submodule, a
    /// single declaration such as `import struct AuthlogCore.Hex`), or nil for any other line.
    static func importedModule(_ line: Substring) -> String? {
        let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
        guard let index = words.firstIndex(of: "import"),
            words[..<index].allSatisfy({ ["public", "internal", "package", "private", "fileprivate"].contains($0) })
        else { return nil }
        let kinds: Set<Substring> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]
        let path = words.dropFirst(index + 1).first { !kinds.contains($0) }
        return path?.split(separator: ".").first.map(String.init)
    }

    /// What `files` (as ``imports()`` gives them) breaks of the rules, one sentence each.
    static func violations(_ files: [String: Set<String>]) -> [String] {
        let imports = self.modules(files)
        var found: [String] = []
        for (module, never) in self.forbidden {
            let wrong = (imports[module] ?? []).intersection(never)
            if !wrong.isEmpty {
                found.append("\(module) imports \(wrong.sorted()), which docs/architecture.md forbids")
            }
        }
        for (module, allowed) in self.allowedOnly {
            let wrong = (imports[module] ?? []).subtracting(allowed)
            if !wrong.isEmpty {
                found.append("\(module) imports \(wrong.sorted()); it may import \(allowed.sorted()) only")
            }
        }
        for (library, owner) in self.owners {
            let importers = imports.filter { $0.value.contains(library) }.map(\.key)
            if importers != [owner] {
                found.append("\(library) is imported by \(importers.sorted()), not only by \(owner)")
            }
        }
        for (library, owners) in self.fileOwners {
            let importers = Set(files.filter { $0.value.contains(library) }.map(\.key))
            if !importers.isSubset(of: owners) {
                found.append("\(library) is imported by \(importers.sorted()), not only by \(owners.sorted())")
            }
        }
        return found.sorted()
    }

    @Test func noModuleImportsWhatTheGraphForbids() throws {
        let files = try Self.imports()
        let imports = Self.modules(files)
        #expect(imports["AuthlogAccounts"]?.contains("AuthlogCore") == true, "the reader found no imports")
        #expect(imports["AuthlogClient"]?.contains("AuthlogTransparency") == true, "the reader missed clients/swift")
        #expect(imports["AuthlogStore"]?.contains("AuthlogTransparency") == true)
        #expect(imports["AuthlogTransparency"]?.contains("Foundation") == true)
        #expect(files["AuthlogClient/Crypto/LibcryptoClientCrypto.swift"]?.contains("CLibcrypto") == true)
        #expect(Self.violations(files) == [])
    }

    /// Each rule catches the import it exists for.
    @Test func aForbiddenImportIsReported() throws {
        let allowed = try Self.imports()
        let cases: [(module: String, imports: String, rule: String)] = [
            ("AuthlogTransparency", "Crypto", "it may import"),
            ("AuthlogTransparency", "CLibcrypto", "it may import"),
            ("AuthlogTransparency", "CryptoKit", "it may import"),
            ("AuthlogClient", "CLibcrypto", "CLibcrypto is imported by"),
            ("AuthlogClient", "Crypto", "Crypto is imported by"),
            ("AuthlogClient", "CryptoKit", "CryptoKit is imported by"),
            ("AuthlogClient", "COpenSSL", "which docs/architecture.md forbids"),
            ("AuthlogCrypto", "CLibcrypto", "CLibcrypto is imported by"),
            ("AuthlogTransparency", "AuthlogCore", "it may import"),
            ("AuthlogTransparency", "NIOCore", "it may import"),
            ("AuthlogTransparency", "COpenSSL", "COpenSSL is imported by"),
            ("AuthlogClient", "AuthlogCore", "which docs/architecture.md forbids"),
            ("AuthlogClient", "AuthlogCrypto", "which docs/architecture.md forbids"),
            ("AuthlogClient", "Hummingbird", "which docs/architecture.md forbids"),
            ("AuthlogWitness", "AuthlogStore", "which docs/architecture.md forbids"),
            ("AuthlogWitness", "AuthlogServer", "which docs/architecture.md forbids"),
            ("AuthlogWitness", "AuthlogPostgres", "which docs/architecture.md forbids"),
            ("AuthlogServer", "COpenSSL", "COpenSSL is imported by"),
            ("AuthlogCrypto", "CLibPQ", "CLibPQ is imported by"),
            // One declaration imported by its kind is still an import of its module.
            ("AuthlogClient", "struct AuthlogCore.Hex", "which docs/architecture.md forbids"),
            ("AuthlogWitness", "enum AuthlogStore.CheckpointCosignatures", "which docs/architecture.md forbids"),
            ("AuthlogTransparency", "func Crypto.SHA256", "it may import"),
        ]
        for (module, imported, rule) in cases {
            var imports = allowed
            // A file of its own, read as its `import` line is: the rules on modules and on files both see it.
            let line = "import \(imported)"
            let name = try #require(Self.importedModule(line[...]), "\(line)")
            imports["\(module)/Injected.swift", default: []].insert(name)
            let found = Self.violations(imports)
            #expect(found.contains { $0.contains(module) && $0.contains(rule) }, "\(module) → \(imported): \(found)")
        }
    }

    @Test func theReaderSeesEveryFormOfImport() {
        #expect(Self.importedModule("public import AuthlogStore") == "AuthlogStore")
        #expect(Self.importedModule("@testable import AuthlogServer") == "AuthlogServer")
        #expect(Self.importedModule("internal import CLibPQ.Sub") == "CLibPQ")
        #expect(Self.importedModule("import Foundation") == "Foundation")
        #expect(Self.importedModule("import struct AuthlogCore.Hex") == "AuthlogCore")
        #expect(Self.importedModule("public import enum AuthlogStore.CheckpointCosignatures") == "AuthlogStore")
        #expect(Self.importedModule("@_spi(Testing) import func Crypto.hash") == "Crypto")
        #expect(Self.importedModule("// import AuthlogStore") == nil)
        #expect(Self.importedModule("let x = importer") == nil)
    }
}
