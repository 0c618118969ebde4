public import AuthlogCore

/// What an app sends to prove who signed in (the body of `POST /v1/signin/{provider}`).
public struct SigninProof: Sendable {
    /// A provider's identity token.
    public var idToken: String?
    /// The nonce as the device made it (Apple: its SHA-256 is in the token; others: the value itself).
    public var rawNonce: String?
    /// An authorization code to exchange.
    public var authorizationCode: String?
    /// The PKCE verifier of that code.
    public var codeVerifier: String?
    /// The redirect URI the code was issued for.
    public var redirectURI: String?
    /// A provider access token the app obtained itself.
    public var accessToken: String?
    /// Apple's first-time `user` JSON (`{"name": {"firstName", "lastName"}, "email"}`), unsigned.
    public var user: JSONValue?
    /// The development provider's chosen subject.
    public var subject: String?
    /// The app's client id, when it said (chooses the client id of a code exchange among the allowed ones).
    public var clientID: String?

    /// Creates a proof.
    public init(
        idToken: String? = nil,
        rawNonce: String? = nil,
        authorizationCode: String? = nil,
        codeVerifier: String? = nil,
        redirectURI: String? = nil,
        accessToken: String? = nil,
        user: JSONValue? = nil,
        subject: String? = nil,
        clientID: String? = nil
    ) {
        self.idToken = idToken
        self.rawNonce = rawNonce
        self.authorizationCode = authorizationCode
        self.codeVerifier = codeVerifier
        self.redirectURI = redirectURI
        self.accessToken = accessToken
        self.user = user
        self.subject = subject
        self.clientID = clientID
    }

    /// The client id a code exchange uses: the app's own when it is among `allowed`, else the first allowed.
    func exchangeClientID(among allowed: Set<String>) -> String? {
        if let clientID = self.clientID, allowed.contains(clientID) { return clientID }
        return allowed.sorted().first
    }

    /// The kind of proof, as recorded in events: `id_token`, `authorization_code`, `access_token` or
    /// `development`.
    public var method: String {
        if self.idToken != nil { return "id_token" }
        if self.authorizationCode != nil { return "authorization_code" }
        if self.accessToken != nil { return "access_token" }
        return "development"
    }
}
