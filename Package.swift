// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "authlog",
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [
        .executable(name: "authlog", targets: ["authlog"]),
        .executable(name: "authlog-bench", targets: ["AuthlogBench"]),
        .library(name: "AuthlogCore", targets: ["AuthlogCore"]),
        .library(name: "AuthlogCrypto", targets: ["AuthlogCrypto"]),
        .library(name: "AuthlogPostgres", targets: ["AuthlogPostgres"]),
        .library(name: "AuthlogStore", targets: ["AuthlogStore"]),
        .library(name: "AuthlogProviders", targets: ["AuthlogProviders"]),
        .library(name: "AuthlogAccounts", targets: ["AuthlogAccounts"]),
        .library(name: "AuthlogServer", targets: ["AuthlogServer"]),
        .library(name: "AuthlogWitness", targets: ["AuthlogWitness"]),
        .library(name: "AuthlogPlaces", targets: ["AuthlogPlaces"]),
    ],
    dependencies: [
        // The client package (AuthlogClient and the verification core, AuthlogTransparency): its own Package.swift,
        // so that an app resolves swift-crypto alone. Its identity is the folder's name, "swift".
        .package(path: "clients/swift"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // zlib, for gzip answers of the log's read routes (AuthlogServer's GzipAnswer alone imports it).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libmaxminddb, the reference MaxMind DB reader, for the places of sign-ins (AuthlogPlaces alone imports it).
        .systemLibrary(
            name: "CMaxMindDB",
            pkgConfig: "libmaxminddb",
            providers: [.apt(["libmaxminddb-dev"])]
        ),
        .target(
            name: "AuthlogCore",
            swiftSettings: strictSettings
        ),
        .target(
            name: "AuthlogPlaces",
            dependencies: ["CMaxMindDB", "AuthlogCore"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "AuthlogCrypto",
            dependencies: ["COpenSSL", "AuthlogCore", .product(name: "AuthlogTransparency", package: "swift")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "SQLEmbedder",
            swiftSettings: strictSettings
        ),
        .plugin(
            name: "EmbedSQLPlugin",
            capability: .buildTool(),
            dependencies: ["SQLEmbedder"],
            path: "Sources/EmbedSQLPlugin"
        ),
        .target(
            name: "AuthlogPostgres",
            dependencies: ["CLibPQ", "AuthlogCore"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "AuthlogStore",
            dependencies: [
                "AuthlogPostgres",
                "AuthlogCore",
                "AuthlogCrypto",
                .product(name: "AuthlogTransparency", package: "swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings,
            plugins: ["EmbedSQLPlugin"]
        ),
        .target(
            name: "AuthlogProviders",
            dependencies: [
                "AuthlogCore",
                "AuthlogCrypto",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "AuthlogAccounts",
            dependencies: [
                "AuthlogCore",
                "AuthlogCrypto",
                "AuthlogProviders",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "AuthlogWitness",
            dependencies: [
                "AuthlogCore",
                "AuthlogCrypto",
                .product(name: "AuthlogTransparency", package: "swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "AuthlogServer",
            dependencies: [
                "AuthlogAccounts",
                "AuthlogCore",
                "AuthlogPlaces",
                "AuthlogCrypto",
                "AuthlogStore",
                "AuthlogPostgres",
                "AuthlogProviders",
                "AuthlogWitness",
                "CZlib",
                .product(name: "AuthlogTransparency", package: "swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "AuthlogTesting",
            dependencies: [
                "AuthlogAccounts",
                "AuthlogCore",
                "AuthlogCrypto",
                "AuthlogStore",
                "AuthlogPostgres",
                "AuthlogProviders",
                "AuthlogServer",
                .product(name: "AuthlogTransparency", package: "swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "authlog",
            dependencies: [
                "AuthlogAccounts",
                "AuthlogCore",
                "AuthlogStore",
                "AuthlogPostgres",
                "AuthlogCrypto",
                "AuthlogProviders",
                "AuthlogServer",
                "AuthlogWitness",
                .product(name: "AuthlogTransparency", package: "swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strictSettings
        ),
        // Used only by the tests: the second process of AuthlogClient's two-process refresh test.
        .executableTarget(
            name: "AuthlogClientProbe",
            dependencies: [.product(name: "AuthlogClient", package: "swift")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "AuthlogBench",
            dependencies: [
                "AuthlogAccounts",
                "AuthlogCore",
                "AuthlogStore",
                "AuthlogPostgres",
                "AuthlogTesting",
                "AuthlogServer",
                "AuthlogProviders",
                "AuthlogCrypto",
                "AuthlogWitness",
                .product(name: "AuthlogClient", package: "swift"),
                .product(name: "AuthlogTransparency", package: "swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogCoreTests",
            dependencies: ["AuthlogCore", "AuthlogTesting"],
            // Copies of the OCSF schema's files and OWASP's Logging Vocabulary, read by path (#filePath).
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogPlacesTests",
            dependencies: ["AuthlogPlaces", "AuthlogCore", "AuthlogTesting"],
            // The script that writes the MaxMind DB files the tests read, with MaxMind's Perl writer.
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogCryptoTests",
            dependencies: [
                "AuthlogCrypto", "AuthlogCore", "AuthlogTesting",
                .product(name: "AuthlogTransparency", package: "swift"),
            ],
            exclude: ["Python"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogAccountsTests",
            dependencies: ["AuthlogAccounts", "AuthlogProviders", "AuthlogCrypto", "AuthlogCore", "AuthlogTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogPostgresTests",
            dependencies: ["AuthlogPostgres", "AuthlogCore"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogProvidersTests",
            dependencies: ["AuthlogProviders", "AuthlogCrypto", "AuthlogCore", "AuthlogTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogServerTests",
            dependencies: [
                "AuthlogAccounts", "AuthlogServer", "AuthlogProviders", "AuthlogCrypto", "AuthlogCore",
                "AuthlogPostgres", "AuthlogTesting", "AuthlogWitness",
                .product(name: "AuthlogTransparency", package: "swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogIntegrationTests",
            dependencies: [
                "authlog", "AuthlogClientProbe", "AuthlogAccounts", "AuthlogServer", "AuthlogWitness",
                "AuthlogProviders", "AuthlogStore",
                "AuthlogPostgres", "AuthlogCrypto", "AuthlogCore", "AuthlogTesting",
                .product(name: "AuthlogClient", package: "swift"),
                .product(name: "AuthlogTransparency", package: "swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
