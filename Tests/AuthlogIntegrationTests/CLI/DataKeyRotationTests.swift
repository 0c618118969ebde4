import AuthlogCore
import AuthlogCrypto
import AuthlogPostgres
import AuthlogStore
import AuthlogTesting
import Foundation
import Testing

@testable import AuthlogAccounts

/// `data_key` is rotated as docs/operations.md says: the subject key is pinned first (`keys subject-key`), the
/// new key becomes `data_key` with the old one in `previous_data_keys`, and `keys rewrap` seals every user key
/// and provider credential again under the new key. Personal data sealed into events is never rewritten, and
/// opens with the new key alone once the rewrap ran.
@Suite(.enabled(if: TestDatabase.isAvailable))
struct DataKeyRotationTests {
    private let oldKey = Array(repeating: UInt8(0x11), count: 32)
    private let newKey = Array(repeating: UInt8(0x22), count: 32)

    /// Three users' profiles and two provider credentials sealed under the old key, as the server seals them.
    private func sealedUnderTheOldKey(
        _ database: TestDatabase
    ) async throws -> (pool: ConnectionPool, profiles: [(UUID, String)], credentials: [(String, String)]) {
        let pool = ConnectionPool(conninfo: database.conninfo)
        let vault = PersonalDataVault(dataKey: self.oldKey, keys: UserKeyStore(pool: pool))
        var profiles: [(UUID, String)] = []
        for index in 0..<3 {
            let user = UUID.version7()
            let sealed = try #require(
                try await vault.sealProfile(displayName: "User \(index)", email: "u\(index)@example.com", for: user)
            )
            profiles.append((user, sealed))
        }
        let credentials = [("apple", "subject-hash-1"), ("kakao", "subject-hash-2")]
        for (provider, subject) in credentials {
            let sealed = try AESGCM.seal(
                JSONValue.object([("credential", .string("secret-of-\(provider)"))]).canonicalBytes,
                key: self.oldKey,
                authenticating: IdentityRegistry.credentialContext(provider: provider, subjectHash: subject)
            )
            try await ProviderCredentialStore(pool: pool).save(
                provider: provider,
                subjectHash: subject,
                sealed: sealed.combined,
                at: .now()
            )
        }
        return (pool, profiles, credentials)
    }

    @Test func rewrapSealsEveryRowUnderTheNewKeyAndIsSafeToRunAgain() async throws {
        let database = try await TestDatabase.make()
        let (pool, profiles, credentials) = try await self.sealedUnderTheOldKey(database)
        let environment = [
            "AUTHLOG_DATA_KEY": Base64URL.encode(self.newKey),
            "AUTHLOG_PREVIOUS_DATA_KEYS": "[\"\(Base64URL.encode(self.oldKey))\"]",
            "AUTHLOG_SUBJECT_KEY": Base64URL.encode(IdentityHasher.derivedKey(fromDataKey: self.oldKey)),
        ]
        // Before the rewrap a server with both keys already reads everything.
        let both = PersonalDataVault(dataKey: self.newKey, previousKeys: [self.oldKey], keys: UserKeyStore(pool: pool))
        #expect(
            try await both.openProfile(profiles[0].1, for: profiles[0].0)?["email"]?.stringValue == "u0@example.com"
        )

        let first = try await CLIProcess.run(
            ["keys", "rewrap"],
            databaseURL: database.conninfo,
            environment: environment
        )
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stdout
                == "rewrapped 3 user keys and 2 provider credentials under data_key; 0 were under it already, 0 changed "
                + "meanwhile (run again)\n"
        )
        let again = try await CLIProcess.run(
            ["keys", "rewrap"],
            databaseURL: database.conninfo,
            environment: environment
        )
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("rewrapped 0 user keys and 0 provider credentials under data_key; 5 were"))

        // The new key alone opens the profiles sealed before the rotation (events keep them as they were) and
        // the credentials; the old key alone opens nothing any more.
        let newOnly = PersonalDataVault(dataKey: self.newKey, keys: UserKeyStore(pool: pool))
        for (index, (user, sealed)) in profiles.enumerated() {
            #expect(try await newOnly.openProfile(sealed, for: user)?["display_name"]?.stringValue == "User \(index)")
        }
        let oldOnly = PersonalDataVault(dataKey: self.oldKey, keys: UserKeyStore(pool: pool))
        await #expect(throws: CryptoError.self) { try await oldOnly.openProfile(profiles[0].1, for: profiles[0].0) }
        for (provider, subject) in credentials {
            let sealed = try #require(
                try await ProviderCredentialStore(pool: pool).sealed(provider: provider, subjectHash: subject)
            )
            let opened = try AESGCM.open(
                try AESGCM.SealedBox(combined: sealed),
                key: self.newKey,
                authenticating: IdentityRegistry.credentialContext(provider: provider, subjectHash: subject)
            )
            #expect(try JSONParser().parse(opened)["credential"]?.stringValue == "secret-of-\(provider)")
        }
    }

    @Test func aRowNoKeyOpensIsLeftAndNamedAndTheSubjectKeyMustBePinned() async throws {
        let database = try await TestDatabase.make()
        _ = try await self.sealedUnderTheOldKey(database)
        let stranger = Array(repeating: UInt8(0x33), count: 32)
        let unpinned = try await CLIProcess.run(
            ["keys", "rewrap"],
            databaseURL: database.conninfo,
            environment: [
                "AUTHLOG_DATA_KEY": Base64URL.encode(self.newKey),
                "AUTHLOG_PREVIOUS_DATA_KEYS": "[\"\(Base64URL.encode(self.oldKey))\"]",
            ]
        )
        #expect(unpinned.status == 2)
        #expect(unpinned.stderr.contains("previous_data_keys needs subject_key"), "\(unpinned.stderr)")
        let subject = try await CLIProcess.run(
            ["keys", "subject-key"],
            databaseURL: "postgresql:///unused",
            environment: ["AUTHLOG_DATA_KEY": Base64URL.encode(self.oldKey)]
        )
        #expect(subject.stdout == Base64URL.encode(IdentityHasher.derivedKey(fromDataKey: self.oldKey)) + "\n")
        let wrongOld = try await CLIProcess.run(
            ["keys", "rewrap"],
            databaseURL: database.conninfo,
            environment: [
                "AUTHLOG_DATA_KEY": Base64URL.encode(self.newKey),
                "AUTHLOG_PREVIOUS_DATA_KEYS": "[\"\(Base64URL.encode(stranger))\"]",
                "AUTHLOG_SUBJECT_KEY": subject.stdout.trimmingCharacters(in: .newlines),
            ]
        )
        #expect(wrongOld.status == 1)
        #expect(wrongOld.stderr.contains("5 rows open with no configured data key; they were left as they are"))
        #expect(try await database.scalar("SELECT count(*) FROM authlog.user_keys") == 3, "nothing was deleted")
    }
}
