/// The answer to ``AuthlogClient/deleteAccount()``.
public struct AccountDeletion: Sendable, Hashable {
    /// Per provider: `revoked` (the grant is gone at the provider, such as Apple's `/auth/revoke`), `queued`
    /// (authlog retries in the background), `abandoned`, or `none` (authlog held no credential).
    public let providerRevocations: [String: String]

    /// Creates the answer.
    public init(providerRevocations: [String: String]) {
        self.providerRevocations = providerRevocations
    }
}
