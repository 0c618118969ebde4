/// How authlog treats DPoP proofs (RFC 9449): each client's policy, server nonces and the accepted age of a
/// proof (`dpop` in the configuration; docs/configuration.md).
public struct DPoPSettings: Sendable, Equatable {
    /// Whether a client's sign-ins are bound to a key.
    public enum Policy: String, Sendable, CaseIterable {
        /// Proofs are ignored: every session is a Bearer session.
        case off
        /// A sign-in that carries a proof is bound; one without is not (the default).
        case optional
        /// A sign-in without a proof is refused (`dpop_missing`).
        case required
    }

    /// The policy of clients not named in ``clients`` (and of sign-ins that name no client).
    public var defaultPolicy = Policy.optional
    /// The policy of each `client_id` named.
    public var clients: [String: Policy] = [:]
    /// Whether proofs must carry a server nonce (`DPoP-Nonce`, `use_dpop_nonce`); off by default.
    public var noncesRequired = false
    /// How often the server nonce changes, in seconds.
    public var nonceRotationSeconds: Int64 = 300
    /// How old a proof's `iat` may be, in seconds: also how long its `jti` is remembered.
    public var maximumAge: Int64 = 60
    /// How far ahead of the server's clock a proof's `iat` may be, in seconds.
    public var maximumSkew: Int64 = 15

    /// The defaults: `optional` for every client, no nonces, proofs up to 60 s old and 15 s ahead.
    public init() {}

    /// The policy for the client named `clientID`.
    public func policy(for clientID: String?) -> Policy {
        clientID.flatMap { self.clients[$0] } ?? self.defaultPolicy
    }
}
