@_spi(Testing) import AuthlogClient
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The per-install device id: made once by the token store, kept across sign-outs and instances of a file store,
/// and sent as `Authlog-Device-Id` with every sign-in and refresh (``AlertingTokenServer`` records it); a store
/// that cannot give it leaves the header out without failing anything.
@Suite(.timeLimit(.minutes(1)))
struct DeviceIDTests {
    /// Whether `text` is 43 characters of unpadded base64url that decode to 32 bytes.
    static func isDeviceID(_ text: String) -> Bool {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        guard text.count == 43, text.allSatisfy(alphabet.contains) else { return false }
        let base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "="
        return Data(base64Encoded: base64)?.count == 32
    }

    /// A token file's URL in a new folder.
    static func tokenFile() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("device-id-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("tokens.json")
    }

    @Test func theDeviceIDGoesWithEverySigninAndRefresh() async throws {
        let server = AlertingTokenServer()
        let store = InMemoryTokenStore()
        let client = SigninAlertTests.client(server, store)
        try await client.signIn(with: .dev(subject: "ada"))
        try await client.refresh()
        try await client.signIn(with: .dev(subject: "ada"), rememberMe: false)
        try await client.refresh()
        let sent = server.tokenRequestDeviceIDs
        #expect(
            server.received.map(\.path) == [
                "/v1/signin/dev", "/v1/token/refresh", "/v1/signin/dev", "/v1/token/refresh",
            ]
        )
        let deviceID = try #require(try await store.loadOrCreateDeviceID())
        #expect(sent == Array(repeating: deviceID, count: 4))
        #expect(Self.isDeviceID(deviceID), "\(deviceID)")
    }

    /// A sign-out clears the tokens, not the id: a client made afterwards on the same store (which asks the store
    /// again) sends the same one.
    @Test(arguments: ["memory", "file"])
    func theDeviceIDOutlivesASignOut(_ kind: String) async throws {
        let store: any TokenStore = kind == "file" ? FileTokenStore(url: try Self.tokenFile()) : InMemoryTokenStore()
        let server = AlertingTokenServer()
        let before = SigninAlertTests.client(server, store)
        try await before.signIn(with: .dev(subject: "ada"))
        try await before.logout()
        #expect(try await store.load() == nil, "the sign-out cleared the tokens")
        try await SigninAlertTests.client(server, store).signIn(with: .dev(subject: "ada"))
        let sent = server.tokenRequestDeviceIDs
        #expect(sent.count == 2 && sent[0] != nil && sent[0] == sent[1], "\(sent)")
        try await store.clear()
        #expect(try await store.loadOrCreateDeviceID() == sent[0])
    }

    @Test func freshStoresMakeDifferentIDs() async throws {
        let stores: [any TokenStore] = [
            InMemoryTokenStore(), InMemoryTokenStore(), FileTokenStore(url: try Self.tokenFile()),
            FileTokenStore(url: try Self.tokenFile()),
        ]
        var made: [String] = []
        for store in stores {
            let deviceID = try #require(try await store.loadOrCreateDeviceID())
            #expect(Self.isDeviceID(deviceID), "\(deviceID)")
            #expect(try await store.loadOrCreateDeviceID() == deviceID, "asked again, the same id")
            made.append(deviceID)
        }
        #expect(Set(made).count == stores.count)
    }

    @Test func theFileStoreKeepsItsIDAcrossInstancesOnOneFile() async throws {
        let url = try Self.tokenFile()
        let first = FileTokenStore(url: url)
        try await first.save(ClientValueTests.tokens)
        let deviceID = try #require(try await first.loadOrCreateDeviceID())
        let later = FileTokenStore(url: url)
        #expect(try await later.loadOrCreateDeviceID() == deviceID)
        try await later.clear()
        #expect(try await FileTokenStore(url: url).loadOrCreateDeviceID() == deviceID)
        // Beside the token file, owner-only, holding the id alone.
        #expect(first.deviceIDURL.path == url.path + ".device-id")
        #expect(try String(contentsOf: first.deviceIDURL, encoding: .utf8) == deviceID)
        var info = stat()
        #expect(stat(first.deviceIDURL.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    /// Stores on one file that all ask at once (each with its own open file, as separate processes would) get
    /// the one id made first.
    @Test func storesRacingOnOneFileMakeOneID() async throws {
        for _ in 0..<5 {
            let url = try Self.tokenFile()
            let ids = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<16 { group.addTask { try await FileTokenStore(url: url).loadOrCreateDeviceID() } }
                return try await group.reduce(into: Set<String?>()) { $0.insert($1) }
            }
            let stored = try String(contentsOf: URL(fileURLWithPath: url.path + ".device-id"), encoding: .utf8)
            #expect(ids == [stored])
        }
    }

    @Test func aFileHoldingNoIDIsGivenANewOne() async throws {
        let url = try Self.tokenFile()
        let store = FileTokenStore(url: url)
        try Data("not an id\n".utf8).write(to: store.deviceIDURL)
        let deviceID = try #require(try await store.loadOrCreateDeviceID())
        #expect(Self.isDeviceID(deviceID))
        #expect(try String(contentsOf: store.deviceIDURL, encoding: .utf8) == deviceID)
    }

    /// A store whose id cannot be had (a Keychain error, say) does not fail the sign-in or the refresh: they go
    /// without the header, and the store is asked again next time. A store of one's own that keeps no id (the
    /// protocol's default) sends none.
    @Test func aStoreThatCannotGiveTheIDStillSignsInWithoutTheHeader() async throws {
        let server = AlertingTokenServer()
        let failing = FailingFirstStore()
        let client = SigninAlertTests.client(server, failing)
        try await client.signIn(with: .dev(subject: "ada"))
        try await client.refresh()
        let sent = server.tokenRequestDeviceIDs
        #expect(sent.count == 2 && sent[0] == nil)
        #expect(sent[1] == (try await failing.loadOrCreateDeviceID()), "asked again after the failure")
        let plainServer = AlertingTokenServer()
        try await SigninAlertTests.client(plainServer, PlainStore()).signIn(with: .dev(subject: "ada"))
        #expect(plainServer.tokenRequestDeviceIDs == [nil])
    }
}

/// A store whose first request for the device id fails, as the Keychain's does before the device's first unlock.
private actor FailingFirstStore: TokenStore {
    private let inner = InMemoryTokenStore()
    private var failed = false

    func load() async -> AuthTokens? { await self.inner.load() }
    func save(_ tokens: AuthTokens) async { await self.inner.save(tokens) }
    func clear() async { await self.inner.clear() }

    func loadOrCreateDeviceID() async throws -> String? {
        guard self.failed else {
            self.failed = true
            throw AuthlogClientError(.tokenStore, detail: "errSecInteractionNotAllowed")
        }
        return try await self.inner.loadOrCreateDeviceID()
    }
}

/// A store of one's own that implements only the tokens: the protocol's default keeps no device id.
private actor PlainStore: TokenStore {
    private var tokens: AuthTokens?

    func load() -> AuthTokens? { self.tokens }
    func save(_ tokens: AuthTokens) { self.tokens = tokens }
    func clear() { self.tokens = nil }
}
