// swift-tools-version:6.0
import PackageDescription

// The client's own package, so that an app that adds it resolves swift-crypto alone and none of the server's
// packages (docs/ios.md). The server's package depends on it by path for the verification core.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "authlog-client",
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [
        .library(name: "AuthlogClient", targets: ["AuthlogClient"]),
        .library(name: "AuthlogTransparency", targets: ["AuthlogTransparency"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0")
    ],
    targets: [
        // The verification core: Merkle tree, proofs, tiles, signed notes, cosignatures, receipts, witness
        // policies. Foundation only; hashing and signature checks come from whoever uses it
        // (`TransparencyCrypto`).
        .target(
            name: "AuthlogTransparency",
            swiftSettings: strictSettings
        ),
        .target(
            name: "AuthlogClient",
            dependencies: [
                "AuthlogTransparency",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogTransparencyTests",
            // AuthlogClient for swift-crypto's TransparencyCrypto; Crypto for a signing key (apps never sign).
            dependencies: ["AuthlogTransparency", "AuthlogClient", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogClientTests",
            dependencies: ["AuthlogClient", "AuthlogTransparency"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
