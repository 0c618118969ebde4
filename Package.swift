// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "authlog",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "authlog", targets: ["authlog"]),
        .executable(name: "authlog-bench", targets: ["AuthlogBench"]),
        .library(name: "AuthlogCore", targets: ["AuthlogCore"]),
        .library(name: "AuthlogCrypto", targets: ["AuthlogCrypto"]),
        .library(name: "AuthlogStore", targets: ["AuthlogStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
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
        .target(
            name: "AuthlogCore",
            swiftSettings: strictSettings
        ),
        .target(
            name: "AuthlogCrypto",
            dependencies: ["COpenSSL", "AuthlogCore"],
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
            name: "AuthlogStore",
            dependencies: [
                "CLibPQ",
                "AuthlogCore",
                "AuthlogCrypto",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings,
            plugins: ["EmbedSQLPlugin"]
        ),
        .target(
            name: "AuthlogTesting",
            dependencies: ["AuthlogCore", "AuthlogStore"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "authlog",
            dependencies: [
                "AuthlogCore",
                "AuthlogStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "AuthlogBench",
            dependencies: [
                "AuthlogCore",
                "AuthlogStore",
                "AuthlogTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogCoreTests",
            dependencies: ["AuthlogCore", "AuthlogTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogCryptoTests",
            dependencies: ["AuthlogCrypto", "AuthlogCore"],
            exclude: ["Python"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogStoreTests",
            dependencies: ["AuthlogStore", "AuthlogCore", "AuthlogCrypto", "AuthlogTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogCLITests",
            dependencies: ["authlog", "AuthlogStore", "AuthlogCore", "AuthlogTesting"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
