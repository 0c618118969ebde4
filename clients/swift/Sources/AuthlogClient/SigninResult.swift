/// The answer to a sign-in: the new session's tokens (already saved in the client's ``TokenStore``).
public struct SigninResult: Sendable, CustomStringConvertible {
    /// The tokens.
    public let tokens: AuthTokens
    /// Whether this sign-in registered the user (show onboarding).
    public let isNewUser: Bool
    /// The events the sign-in appended to authlog's log; each has a receipt (`GET /v1/log/receipt/{id}`).
    public let eventIDs: [String]
    /// What authlog found unusual about this sign-in, or `nil` when nothing was (or the answer's alert was
    /// malformed). The same alert comes on the session's events as ``SessionEvent/unusualSignin(_:)``.
    public let signinAlert: SigninAlert?

    /// Creates a result.
    public init(tokens: AuthTokens, isNewUser: Bool, eventIDs: [String], signinAlert: SigninAlert? = nil) {
        self.tokens = tokens
        self.isNewUser = isNewUser
        self.eventIDs = eventIDs
        self.signinAlert = signinAlert
    }

    /// The tokens' redacted description, whether the user is new, and the alert, if any.
    public var description: String {
        "SigninResult(\(self.tokens), new user: \(self.isNewUser)\(self.signinAlert.map { ", \($0)" } ?? ""))"
    }
}
