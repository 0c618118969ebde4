import Foundation
import Testing

@testable import AuthlogClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The install's DPoP key in the token store: made once, kept across clients on one file, sign-outs and stores
/// racing to make it; replaced when what is stored is no usable key. And the tokens' type, stored with them.
@Suite(.timeLimit(.minutes(1)))
struct DPoPKeyStoreTests {
    /// The thumbprint of the key stored in `store`'s file, computed from the file alone.
    static func thumbprintInFile(of store: FileTokenStore) throws -> String {
        let stored = try JSONDecoder().decode(StoredDPoPKey.self, from: Data(contentsOf: store.dpopKeyURL))
        return try DPoPProofMaker(key: try PlatformDPoPKey.restore(stored)).thumbprint
    }

    /// A new client on the same token file proves the same key: authlog accepts its refresh of the session the first
    /// client signed in, and it reports the same thumbprint.
    @Test func theKeyOutlivesTheClientOnOneFileStore() async throws {
        let server = try DPoPTokenServer()
        let url = try DeviceIDTests.tokenFile()
        let first = DPoPFlowTests.client(server, FileTokenStore(url: url))
        let signedIn = try await first.signIn(with: .dev(subject: "ada")).tokens
        let thumbprint = try #require(try await first.dpopKeyThumbprint())

        let store = FileTokenStore(url: url)
        let later = DPoPFlowTests.client(server, store)
        #expect(try await later.currentTokens()?.tokenType == .dpop, "the type was stored with the tokens")
        let refreshed = try await later.refresh()
        #expect(refreshed.refreshToken != signedIn.refreshToken)
        #expect(try await later.dpopKeyThumbprint() == thumbprint)
        #expect(server.seen("/v1/token/refresh").map { $0.proof?.thumbprint } == [thumbprint])
        #expect(try Self.thumbprintInFile(of: store) == thumbprint)
        // Beside the token file, owner-only.
        #expect(store.dpopKeyURL.path == url.path + ".dpop-key")
        var info = stat()
        #expect(stat(store.dpopKeyURL.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    /// Signing out clears the tokens, not the key: the next sign-in proves the same one.
    @Test(arguments: ["memory", "file"])
    func theKeyOutlivesASignOut(_ kind: String) async throws {
        let store: any TokenStore =
            kind == "file" ? FileTokenStore(url: try DeviceIDTests.tokenFile()) : InMemoryTokenStore()
        let server = try DPoPTokenServer()
        let client = DPoPFlowTests.client(server, store)
        try await client.signIn(with: .dev(subject: "ada"))
        try await client.logout()
        #expect(try await store.load() == nil)
        try await DPoPFlowTests.client(server, store).signIn(with: .dev(subject: "ada"))
        let thumbprints = server.seen("/v1/signin/dev").map { $0.proof?.thumbprint }
        #expect(thumbprints.count == 2 && thumbprints[0] != nil && thumbprints[0] == thumbprints[1])
        try await store.clear()
        #expect(try await DPoPFlowTests.client(server, store).dpopKeyThumbprint() == thumbprints[0])
    }

    /// Clients on one token file that all ask at once, each through its own store (its own open files, as separate
    /// processes have), end with the one key made first; so do clients sharing one in-memory store.
    @Test func clientsRacingToMakeTheKeyEndWithOne() async throws {
        let server = try DPoPTokenServer()
        for _ in 0..<5 {
            let url = try DeviceIDTests.tokenFile()
            let thumbprints = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        try await DPoPFlowTests.client(server, FileTokenStore(url: url)).dpopKeyThumbprint()
                    }
                }
                return try await group.reduce(into: Set<String?>()) { $0.insert($1) }
            }
            #expect(thumbprints.count == 1)
            #expect(thumbprints.first == (try Self.thumbprintInFile(of: FileTokenStore(url: url))))
        }
        let shared = InMemoryTokenStore()
        let thumbprints = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<16 { group.addTask { try await DPoPFlowTests.client(server, shared).dpopKeyThumbprint() } }
            return try await group.reduce(into: Set<String?>()) { $0.insert($1) }
        }
        #expect(thumbprints.count == 1 && thumbprints.first != nil)
    }

    /// What the store holds is no key this device can use (not a key at all, bytes that are no P-256 key, a
    /// Secure Enclave key on Linux): the client makes a new one in its place, and the store keeps that one.
    @Test(arguments: [
        "not a key",
        #"{"kind":"p256","representation":"AAEC"}"#,
        #"{"kind":"secure-enclave-p256","representation":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="}"#,
    ])
    func aStoredKeyThatCannotBeUsedIsReplaced(_ contents: String) async throws {
        let url = try DeviceIDTests.tokenFile()
        let store = FileTokenStore(url: url)
        try Data(contents.utf8).write(to: store.dpopKeyURL)
        let server = try DPoPTokenServer()
        let thumbprint = try #require(try await DPoPFlowTests.client(server, store).dpopKeyThumbprint())
        #expect(try Self.thumbprintInFile(of: store) == thumbprint)
        #expect(try await DPoPFlowTests.client(server, FileTokenStore(url: url)).dpopKeyThumbprint() == thumbprint)
    }

    /// Tokens stored before the client knew DPoP have no type: they are Bearer tokens. A DPoP pair keeps its type.
    @Test func tokensStoredWithoutATypeAreBearer() async throws {
        var object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(ClientValueTests.tokens)) as? [String: Any]
        )
        #expect(object.removeValue(forKey: "tokenType") as? String == "Bearer")
        let url = try DeviceIDTests.tokenFile()
        try JSONSerialization.data(withJSONObject: object).write(to: url)
        let old = try #require(try await FileTokenStore(url: url).load())
        #expect(old.tokenType == .bearer && old == ClientValueTests.tokens)

        var bound = ClientValueTests.tokens
        bound.tokenType = .dpop
        try await FileTokenStore(url: url).save(bound)
        #expect(try await FileTokenStore(url: url).load()?.tokenType == .dpop)
        #expect(AuthTokens.TokenType(answer: "dpop") == .dpop && AuthTokens.TokenType(answer: nil) == .bearer)
    }
}
