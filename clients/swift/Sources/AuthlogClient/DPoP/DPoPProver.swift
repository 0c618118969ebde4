/// DPoP (RFC 9449) for one client: the install's key, kept by the token store, and the nonces servers gave. A client
/// whose configuration turns DPoP off has none, and sends requests as it did before DPoP.
struct DPoPProver: Sendable {
    /// The request header that carries a proof.
    static let header = "DPoP"

    let keys: DPoPKeyCache
    let nonces = DPoPNonceCache()

    /// A prover with the key `store` keeps.
    init(store: any TokenStore) {
        self.keys = DPoPKeyCache(store: store)
    }
}
