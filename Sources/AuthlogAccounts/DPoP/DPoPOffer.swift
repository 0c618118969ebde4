public import AuthlogCrypto

/// What one HTTP request offered as DPoP (RFC 9449): the values of its `DPoP` headers and the method and URL
/// a proof must name. The HTTP layer sets it for the whole of a request (``current``); the rules read it where
/// a credential is checked, so a route that forgets it offers no proof, and a bound token is refused there.
public struct DPoPOffer: Sendable {
    /// The `DPoP` header values, as sent (more than one is refused).
    public var proofs: [String]
    /// The request's method.
    public var method: String
    /// The request's URL as the client addressed it; nil when it could not be formed.
    public var target: DPoPTarget?
    /// The scheme of the `Authorization` header (`Bearer`, `DPoP`), when it has one: a bound access token must
    /// come as `DPoP` (RFC 9449 §7.1), never downgraded to `Bearer`.
    public var authorizationScheme: String?

    /// Creates an offer.
    public init(proofs: [String], method: String, target: DPoPTarget?, authorizationScheme: String? = nil) {
        self.proofs = proofs
        self.method = method
        self.target = target
        self.authorizationScheme = authorizationScheme
    }

    /// The offer of the request being answered; nil outside one, or when it carried neither a `DPoP` nor an
    /// `Authorization` header.
    @TaskLocal public static var current: DPoPOffer?
}
