// swift-tools-version:6.0
import PackageDescription

// The client's own package. An app that adds it resolves no package at all and builds no crypto library:
// AuthlogClient hashes, checks Ed25519 signatures and draws random bytes with CryptoKit on Apple platforms (a
// system framework) and with the system's OpenSSL 3 libcrypto on Linux (the system-library target CLibcrypto).
// swift-crypto is this package's test dependency only: SwiftPM resolves a dependency package's dependencies for
// the products an app uses, so an app never fetches it (clients/swift/scripts/check-dependencies holds this).
// The server's package depends on this one by path for the verification core.
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
        // Tests only: CryptoKit's API on Linux, for the Apple adapter's code and for signing keys in tests.
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
        // OpenSSL 3's libcrypto on Linux, imported by AuthlogClient's Linux adapter alone (LibcryptoClientCrypto).
        // Its name differs from the server's COpenSSL: module names are one namespace across the server's graph.
        .systemLibrary(
            name: "CLibcrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "AuthlogClient",
            dependencies: [
                "AuthlogTransparency",
                .target(name: "CLibcrypto", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings
        ),
        // Test-only: AuthlogClient's CryptoKit adapter and DPoP key (symbolic links to their files) compiled against
        // swift-crypto, so that the device's code path runs the same vectors, and makes proofs, as the Linux one here.
        .target(
            name: "CryptoKitAPIOnSwiftCrypto",
            dependencies: ["AuthlogTransparency", .product(name: "Crypto", package: "swift-crypto")],
            path: "Tests/CryptoKitAPIOnSwiftCrypto",
            swiftSettings: strictSettings + [.define("CRYPTOKIT_API_ON_SWIFT_CRYPTO")]
        ),
        .testTarget(
            name: "AuthlogTransparencyTests",
            // AuthlogClient for the platform's TransparencyCrypto; Crypto for a signing key (apps never sign).
            dependencies: ["AuthlogTransparency", "AuthlogClient", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AuthlogClientTests",
            // Crypto signs the test log's checkpoints and cosignatures (apps never sign).
            dependencies: [
                "AuthlogClient", "AuthlogTransparency", "CryptoKitAPIOnSwiftCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
