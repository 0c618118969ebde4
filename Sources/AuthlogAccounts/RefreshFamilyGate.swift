/// Admits refreshes of one refresh-token family: the per-family rate limit, taken once per refresh request, when
/// the presented token is first found and before anything is decided or written. A request that loses a race on
/// its session stream and decides again (a concurrent replay waiting its turn) is still one refresh.
public protocol RefreshFamilyGate: Sendable {
    /// Takes one refresh of `family` (its lowercase id).
    /// - Throws: ``ServiceError`` 429 `rate_limited` when the family has used up its bucket.
    func admitRefresh(family: String, requestID: String) throws(ServiceError)
}
