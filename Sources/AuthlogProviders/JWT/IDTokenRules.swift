public import AuthlogCrypto

/// What one provider's identity tokens must satisfy (providers.md §0, with the provider's values).
public struct IDTokenRules: Sendable {
    /// The accepted `iss` values, compared byte for byte.
    public var issuers: [String]
    /// The client ids an `aud` (and `azp`) may name.
    public var audiences: Set<String>
    /// The pinned signature algorithm; never taken from the token.
    public var algorithm: SignatureAlgorithm
    /// The oldest `iat` accepted, in seconds before now (leeway added); `nil` checks only `exp`.
    public var maximumAge: Int64?
    /// Clock skew allowed on `exp`, `nbf` and `iat`, in seconds (RFC 7519 §4.1.4).
    public var leeway: Int64

    /// Creates rules; RS256 with 60 s leeway unless told otherwise.
    public init(
        issuers: [String],
        audiences: Set<String>,
        algorithm: SignatureAlgorithm = .rs256,
        maximumAge: Int64? = nil,
        leeway: Int64 = 60
    ) {
        self.issuers = issuers
        self.audiences = audiences
        self.algorithm = algorithm
        self.maximumAge = maximumAge
        self.leeway = leeway
    }
}
