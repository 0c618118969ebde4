/// The answer to a sign-in: the new session's tokens (already saved in the client's ``TokenStore``).
public struct SigninResult: Sendable, CustomStringConvertible {
    /// The tokens.
    public let tokens: AuthTokens
    /// Whether this sign-in registered the user (show onboarding).
    public let isNewUser: Bool
    /// The events the sign-in appended to authlog's log; each has a receipt (`GET /v1/log/receipt/{id}`).
    public let eventIDs: [String]

    /// Creates a result.
    public init(tokens: AuthTokens, isNewUser: Bool, eventIDs: [String]) {
        self.tokens = tokens
        self.isNewUser = isNewUser
        self.eventIDs = eventIDs
    }

    /// The tokens' redacted description and whether the user is new.
    public var description: String { "SigninResult(\(self.tokens), new user: \(self.isNewUser))" }
}
