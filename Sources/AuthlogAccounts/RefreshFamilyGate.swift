/// Admits refreshes of one refresh-token family: the per-family rate limit, taken once the presented token is
/// found and before anything is decided or written.
public protocol RefreshFamilyGate: Sendable {
    /// Takes one refresh of `family` (its lowercase id).
    /// - Throws: ``ServiceError`` 429 `rate_limited` when the family has used up its bucket.
    func admitRefresh(family: String, requestID: String) throws(ServiceError)
}
