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
public actor FileTokenStore: TokenStore {
    /// The file.
    public let url: URL

    /// A ``FileRefreshLock`` on the file `url` with `.lock` appended, which every process using this file takes.
    public nonisolated let refreshLock: (any RefreshLock)?

    /// How the file's directory is flushed after each rename; tests pass one that fails.
    private let flushDirectory: @Sendable (_ directory: String, _ descriptor: Int32) -> Bool

    /// A store in the file at `url`; its folder must exist.
    public init(url: URL) {
        self.init(url: url, flushDirectory: DurableFile.flushingDirectory)
    }

    /// A store in the file at `url` whose directory is flushed with `flushDirectory`.
    package init(url: URL, flushDirectory: @escaping @Sendable (String, Int32) -> Bool) {
        self.url = url
        self.refreshLock = FileRefreshLock(url: URL(fileURLWithPath: url.path + ".lock"))
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

    /// Removes the file.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when it exists and cannot be removed.
    public func clear() throws {
        guard unlink(self.url.path) == 0 || errno == ENOENT else { throw Self.failure("cannot remove the token file") }
    }

    private static func failure(_ what: String) -> AuthlogClientError {
        AuthlogClientError(.tokenStore, detail: "The token store \(what) (errno \(errno)).")
    }
}
