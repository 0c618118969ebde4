/// DPoP (RFC 9449) for one client: the install's key, kept by the token store, the nonces servers gave and how far
/// their clocks are from the device's. A client
/// whose configuration turns DPoP off has none, and sends requests as it did before DPoP.
struct DPoPProver: Sendable {
    /// The request header that carries a proof.
    static let header = "DPoP"

    let keys: DPoPKeyCache
    let nonces = DPoPNonceCache()
    let clock: DPoPClock

    /// A prover with the key `store` keeps.
    init(store: any TokenStore, clock: DPoPClock = DPoPClock()) {
        self.keys = DPoPKeyCache(store: store)
        self.clock = clock
    }
}
