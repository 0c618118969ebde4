/// Where the client keeps the session's tokens between launches, and the install's device id and DPoP key.
///
/// The client reads the store once, then writes every new pair (sign-in, each refresh) before using it, and
/// clears it when the session ends. Keep only the newest pair: a spent refresh token presented again ends the
/// session. Implementations: ``InMemoryTokenStore``, ``FileTokenStore``, and on Apple platforms
/// ``KeychainTokenStore``.
///
/// A store that several processes share (an app and its extensions) gives a ``refreshLock``: the client then
/// refreshes and writes only while holding it, and reads the store again first, so that one process never
/// presents a refresh token another has already spent.
public protocol TokenStore: Sendable {
    /// The stored tokens, or `nil` when there is no session.
    /// - Throws: when the storage cannot be read.
    func load() async throws -> AuthTokens?
    /// Replaces the stored tokens.
    /// - Throws: when the storage cannot be written.
    func save(_ tokens: AuthTokens) async throws
    /// Forgets the tokens, and only them: the device id stays.
    /// - Throws: when the storage cannot be written.
    func clear() async throws
    /// The lock that the processes sharing this store take around a refresh, or `nil` for a store no other
    /// process writes.
    var refreshLock: (any RefreshLock)? { get }
    /// This install's device id, which the client sends with every sign-in and refresh as `Authlog-Device-Id`:
    /// the stored one, or a new one made and stored the first time.
    ///
    /// The id is not a hardware identifier: it is 32 bytes from the system's secure random generator, in unpadded
    /// base64url (43 characters). It belongs to the install, not to the session: ``clear()`` keeps it, so a user
    /// who signs out and in again is still on a known device; deleting the app's data may drop it. Every process
    /// sharing the store must get the same id, made once even when two ask at the same time. The client asks at
    /// the first sign-in or refresh and keeps the answer; a value not of 22 to 64 base64url characters is not
    /// sent.
    /// - Returns: the id, or `nil` for a store that keeps none (the default): requests then go without the header
    ///   and authlog tells devices apart by their user agent and network.
    /// - Throws: when the storage cannot be read or written. The sign-in or refresh then goes without the header;
    ///   it does not fail.
    func loadOrCreateDeviceID() async throws -> String?
    /// This install's DPoP key (RFC 9449), to which authlog binds the session's tokens: the stored one, or the one
    /// `make` gives, stored the first time.
    ///
    /// Like the device id, the key belongs to the install, not to the session: ``clear()`` keeps it, and every
    /// process sharing the store must get the same key, made once even when two ask at the same time (take a lock
    /// around the check and the write, or add the key only if none is there and return the one that is). Keep it as
    /// the tokens are kept (readable by the app only, never synchronized to another device) and never log it. The
    /// client asks once per ``AuthlogClient`` and keeps the answer.
    /// - Parameters:
    ///   - unusable: A key this store gave that the client could not use (another device's Secure Enclave key, bytes
    ///     that are no key), or `nil`. When the store holds it still, the one `make` gives replaces it.
    ///   - make: Makes a new key; call it only when the store holds none (or holds `unusable`).
    /// - Returns: The key, or `nil` for a store that keeps none (the default): the client then sends no DPoP proofs
    ///   and authlog issues Bearer tokens.
    /// - Throws: when the storage cannot be read or written, or what `make` threw.
    func loadOrCreateDPoPKey(
        replacing unusable: StoredDPoPKey?,
        make: @Sendable () throws -> StoredDPoPKey
    ) async throws -> StoredDPoPKey?
}

extension TokenStore {
    /// `nil`: a store of this process alone.
    public var refreshLock: (any RefreshLock)? { nil }

    /// `nil`: a store of your own keeps no device id unless it implements this. To keep one, store 32 bytes from a
    /// secure random generator in unpadded base64url (43 characters) beside the tokens, where ``clear()`` leaves
    /// it, and make it once for all the processes sharing the store.
    /// - Returns: `nil`.
    public func loadOrCreateDeviceID() async throws -> String? { nil }

    /// `nil`: a store of your own keeps no DPoP key unless it implements this, and the client then uses Bearer
    /// tokens. A key kept in memory only would not do: the session would be bound to a key lost at the next launch.
    /// - Parameters:
    ///   - unusable: Ignored.
    ///   - make: Not called.
    /// - Returns: `nil`.
    /// - Throws: Nothing.
    public func loadOrCreateDPoPKey(
        replacing unusable: StoredDPoPKey?,
        make: @Sendable () throws -> StoredDPoPKey
    ) async throws -> StoredDPoPKey? { nil }
}
