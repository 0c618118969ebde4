import AuthlogTransparency
import Foundation

extension FileTokenStore {
    /// The DPoP key in ``dpopKeyURL``, or the one `make` gives, written there (0600, replaced atomically) when there
    /// is none, or when the file holds `unusable` or something else than a key. A new key is made under a lock on
    /// `<file>.dpop-key.lock`, and the file read again first, so that processes asking at the same time all get the
    /// one made first.
    /// - Parameters:
    ///   - unusable: A key the client could not use, replaced when the file holds it.
    ///   - make: Makes the key.
    /// - Returns: The key.
    /// - Throws: ``AuthlogClientError`` `.tokenStore` when the file cannot be read or written or the lock cannot be
    ///   taken; what `make` threw.
    public func loadOrCreateDPoPKey(
        replacing unusable: StoredDPoPKey?,
        make: @Sendable () throws -> StoredDPoPKey
    ) async throws -> StoredDPoPKey? {
        let path = self.dpopKeyURL.path
        if let stored = try Self.dpopKey(at: path), stored != unusable { return stored }
        let flushDirectory = self.flushDirectory
        return try await self.dpopKeyLock.withLock {
            if let stored = try Self.dpopKey(at: path), stored != unusable { return stored }
            let made = try make()
            let bytes: Data
            do {
                bytes = try JSONEncoder().encode(made)
            } catch {
                throw AuthlogClientError(.tokenStore, detail: "The DPoP key cannot be encoded.")
            }
            do throws(TransparencyError) {
                try StoreFile.write(Array(bytes), to: path, flushDirectory: flushDirectory)
            } catch {
                throw AuthlogClientError(
                    .tokenStore,
                    detail: "The token store cannot write the DPoP key's file (\(error.message))."
                )
            }
            return made
        }
    }

    /// The key in the file at `path`, or `nil` when there is no file or it holds no key.
    private static func dpopKey(at path: String) throws -> StoredDPoPKey? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw AuthlogClientError(.tokenStore, detail: "The DPoP key's file cannot be read.")
        }
        return try? JSONDecoder().decode(StoredDPoPKey.self, from: data)
    }
}
