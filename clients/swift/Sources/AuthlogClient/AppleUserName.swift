/// The name (and email) Apple gives the app on the user's first sign-in only, as
/// `ASAuthorizationAppleIDCredential.fullName` and `.email`.
///
/// authlog keeps it as display data, sealed with the user's key; it is unsigned, so it proves nothing.
/// Send it with the first sign-in: Apple never gives it again.
public struct AppleUserName: Sendable, Hashable {
    /// `fullName?.givenName`.
    public var givenName: String?
    /// `fullName?.familyName`.
    public var familyName: String?
    /// `email` (often a private relay address).
    public var email: String?

    /// Creates the name.
    public init(givenName: String? = nil, familyName: String? = nil, email: String? = nil) {
        self.givenName = givenName
        self.familyName = familyName
        self.email = email
    }

    /// Whether Apple gave nothing (every sign-in after the first).
    public var isEmpty: Bool { self.givenName == nil && self.familyName == nil && self.email == nil }

    /// Apple's web form: `{"name": {"firstName", "lastName"}, "email"}`.
    var bodyValue: BodyValue {
        var name: [String: BodyValue] = [:]
        if let given = self.givenName { name["firstName"] = .string(given) }
        if let family = self.familyName { name["lastName"] = .string(family) }
        var members: [String: BodyValue] = ["name": .object(name)]
        if let email = self.email { members["email"] = .string(email) }
        return .object(members)
    }
}
