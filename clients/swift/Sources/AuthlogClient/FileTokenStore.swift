import AuthlogTransparency
public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tokens in a JSON file readable by its owner only (mode 0600), replaced atomically: each save writes a new
/// file beside it, flushes it to disk and renames it over the old one (``DurableFile``), so a crash leaves the
/// old pair or the new one, never half of either. For command-line tools and Linux apps; on Apple platforms prefer
/// ``KeychainTokenStore``.
///
/// Processes sharing the file share its refresh lock too: a ``FileRefreshLock`` on `<file>.lock` beside it.
///
/// The install's device id is in a second file beside it, `<file>.device-id` (``deviceIDURL``, also 0600 and
/// replaced atomically), and its DPoP key in a third, `<file>.dpop-key` (``dpopKeyURL``, the same); ``clear()``
/// leaves both.
public actor FileTokenStore: TokenStore {
    /// The file.
    public let url: URL

    /// The device id's file: `url` with `.device-id` appended.
    public nonisolated let deviceIDURL: URL

    /// The DPoP key's file: `url` with `.dpop-key` appended.
    public nonisolated let dpopKeyURL: URL

    /// A ``FileRefreshLock`` on the file `url` with `.lock` appended, which every process using this file takes.
    public nonisolated let refreshLock: (any RefreshLock)?

    /// The lock around the device id's creation, on `deviceIDURL` with `.lock` appended. It is not the refresh
    /// lock: the client reads the id for a refresh while holding that one, and would wait for itself.
    private let deviceIDLock: FileRefreshLock

    /// The lock around the DPoP key's creation, on `dpopKeyURL` with `.lock` appended (not the refresh lock either:
    /// a refresh signs its proof while holding that one).
    let dpopKeyLock: FileRefreshLock

    /// How the file's directory is flushed after each rename; tests pass one that fails.
    let flushDirectory: @Sendable (_ directory: String, _ descriptor: Int32) -> Bool

    /// A store in the file at `url`; its folder must exist.
    public init(url: URL) {
        self.init(url: url, flushDirectory: DurableFile.flushingDirectory)
    }

    /// A store in the file at `url` whose directory is flushed with `flushDirectory`.
    package init(url: URL, flushDirectory: @escaping @Sendable (String, Int32) -> Bool) {
        self.url = url
        self.deviceIDURL = URL(fileURLWithPath: url.path + ".device-id")
        self.refreshLock = FileRefreshLock(url: URL(fileURLWithPath: url.path + ".lock"))
        self.deviceIDLock = FileRefreshLock(
            url: URL(fileURLWithPath: url.path + ".device-id.lock"),
            timeout: .seconds(5)
        )
        self.dpopKeyURL = URL(fileURLWithPath: url.path + ".dpop-key")
        self.dpopKeyLock = FileRefreshLock(url: URL(fileURLWithPath: url.path + ".dpop-key.lock"), timeout: .seconds(5))
        self.flushDirectory = flushDirectory
    }

    /// The tokens in the file, or `nil` when there is no file.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when it cannot be read or decoded.
    public func load() throws -> AuthTokens? {
        guard FileManager.default.fileExists(atPath: self.url.path) else { return nil }
        do {
            return try JSONDecoder().decode(AuthTokens.self, from: Data(contentsOf: self.url))
        } catch {
            throw AuthlogClientError(.tokenStore, detail: "The token file cannot be read.")
        }
    }

    /// Writes `tokens` to a new 0600 file and renames it over the old one (``DurableFile``). Once the new file is in
    /// place the save has happened, even when its directory could not be flushed (see ``DurableFile``).
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when it cannot be written; the old file is then unchanged.
    public func save(_ tokens: AuthTokens) throws {
        let bytes: Data
        do {
            bytes = try JSONEncoder().encode(tokens)
        } catch {
            throw AuthlogClientError(.tokenStore, detail: "The tokens cannot be encoded.")
        }
        do {
            try StoreFile.write(Array(bytes), to: self.url.path, flushDirectory: self.flushDirectory)
        } catch {
            throw AuthlogClientError(
                .tokenStore,
                detail: "The token store cannot write the token file (\(error.message))."
            )
        }
    }

    /// Removes the file; the device id's and the DPoP key's files stay.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when it exists and cannot be removed.
    public func clear() throws {
        guard unlink(self.url.path) == 0 || errno == ENOENT else { throw Self.failure("cannot remove the token file") }
    }

    /// The device id in ``deviceIDURL``, or a new one written there (0600, replaced atomically) when there is none.
    /// A new id is made under a lock on `<file>.device-id.lock`, and the file read again first, so that processes
    /// asking at the same time all get the one made first. A file holding something else than an id is replaced.
    /// - Returns: 43 base64url characters over 32 random bytes.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when the file cannot be read or written or the lock cannot
    ///   be taken, `.randomUnavailable` when the system's random generator fails.
    public func loadOrCreateDeviceID() async throws -> String? {
        let path = self.deviceIDURL.path
        if let stored = try Self.deviceID(at: path) { return stored }
        let flushDirectory = self.flushDirectory
        return try await self.deviceIDLock.withLock {
            if let stored = try Self.deviceID(at: path) { return stored }
            let made = try DeviceID.make()
            do throws(TransparencyError) {
                try StoreFile.write(Array(made.utf8), to: path, flushDirectory: flushDirectory)
            } catch {
                throw AuthlogClientError(
                    .tokenStore,
                    detail: "The token store cannot write the device id's file (\(error.message))."
                )
            }
            return made
        }
    }

    /// The id in the file at `path`, or `nil` when there is no file or it holds no id.
    private static func deviceID(at path: String) throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let text: String
        do {
            text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        } catch {
            throw AuthlogClientError(.tokenStore, detail: "The device id's file cannot be read.")
        }
        return DeviceID.isWellFormed(text) ? text : nil
    }

    private static func failure(_ what: String) -> AuthlogClientError {
        AuthlogClientError(.tokenStore, detail: "The token store \(what) (errno \(errno)).")
    }
}
