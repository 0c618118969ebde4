import Foundation
import Testing

/// Wycheproof's Ed25519 verification vectors (`ed25519_test.json`), read from `../shared/test-vectors/wycheproof/`
/// beside the repository, as the server's AuthlogCryptoTests read them. Under `CI=true` a missing file is a
/// failure; otherwise the test is skipped with the reason printed.
struct WycheproofEd25519: Decodable {
    /// One test: a message, a signature and the verdict (`valid` or `invalid`; this file has no `acceptable`).
    struct Case: Decodable {
        let tcId: Int
        let comment: String
        let flags: [String]
        let msg: String
        let sig: String
        let result: String
    }

    /// Tests that share one public key.
    struct Group: Decodable {
        struct PublicKey: Decodable {
            let pk: String
        }

        let publicKey: PublicKey
        let tests: [Case]
    }

    let numberOfTests: Int
    let testGroups: [Group]

    /// The file's location.
    static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/test-vectors/wycheproof/ed25519_test.json")

    /// The vectors, or nil (after recording a failure under CI) when the file is missing.
    static func load() throws -> WycheproofEd25519? {
        guard let data = FileManager.default.contents(atPath: self.url.path) else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("Wycheproof vectors missing at \(self.url.path); CI requires them")
            } else {
                print("skipping Wycheproof ed25519_test.json: not found at \(self.url.path)")
            }
            return nil
        }
        return try JSONDecoder().decode(WycheproofEd25519.self, from: data)
    }
}
