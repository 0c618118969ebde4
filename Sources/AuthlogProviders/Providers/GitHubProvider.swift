import AuthlogCore
import AuthlogCrypto
import Foundation

/// GitHub OAuth apps (providers.md §5): code exchange (an error may arrive as HTTP 200, so the body
/// decides), client-sent tokens checked with `POST /applications/{client_id}/token`, identity from
/// `/user` and the verified primary email from `/user/emails`.
public struct GitHubProvider: IdentityProvider {
    /// GitHub's endpoints and our OAuth app.
    public struct Settings: Sendable {
        /// The token (code-exchange) endpoint.
        public var tokenURL = "https://github.com/login/oauth/access_token"
        /// The REST API base URL.
        public var apiURL = "https://api.github.com"
        /// The OAuth app's client id.
        public var clientID: String
        /// The client secret; prefer the environment variable.
        public var clientSecret: String

        /// Creates settings.
        public init(clientID: String, clientSecret: String) {
            self.clientID = clientID
            self.clientSecret = clientSecret
        }
    }

    public let name: String
    let settings: Settings
    let fetcher: any HTTPFetching

    /// Creates the provider.
    public init(name: String = "github", settings: Settings, fetcher: any HTTPFetching) {
        self.name = name
        self.settings = settings
        self.fetcher = fetcher
    }

    public func verify(_ proof: SigninProof) async throws(ProviderError) -> VerifiedIdentity {
        let accessToken: String
        if let code = proof.authorizationCode {
            accessToken = try await self.exchange(code: code, proof: proof)
        } else if let token = proof.accessToken {
            try await self.checkTokenBelongsToUs(token)
            accessToken = token
        } else {
            throw ProviderError(.unsupportedProof, "GitHub sign-in needs an authorization_code or access_token")
        }
        let user = try await self.api("/user", token: accessToken).successObject(rejected: .providerError)
        guard let id = user["id"]?.integerValue else { throw ProviderError(.providerError, "/user has no numeric id") }
        let emails = try await self.api("/user/emails", token: accessToken).json()
        let primary = emails.arrayValue?.first {
            $0["primary"]?.boolValue == true && $0["verified"]?.boolValue == true
        }
        return VerifiedIdentity(
            provider: self.name,
            subject: String(id),
            clientID: self.settings.clientID,
            verifiedEmail: primary?["email"]?.stringValue,
            displayName: user["name"]?.stringValue ?? user["login"]?.stringValue,
            revocationCredential: accessToken
        )
    }

    private func exchange(code: String, proof: SigninProof) async throws(ProviderError) -> String {
        var fields: [(name: String, value: String)] = [
            ("client_id", self.settings.clientID), ("client_secret", self.settings.clientSecret), ("code", code),
        ]
        if let redirectURI = proof.redirectURI { fields.append(("redirect_uri", redirectURI)) }
        if let verifier = proof.codeVerifier { fields.append(("code_verifier", verifier)) }
        let response = try await self.fetcher.fetch(.form(url: self.settings.tokenURL, fields: fields))
        let body = try response.json()
        if let error = body["error"]?.stringValue {
            throw ProviderError(.providerError, "GitHub refused the code: \(error.prefix(64))")
        }
        guard (200..<300).contains(response.status), let token = body["access_token"]?.stringValue else {
            throw ProviderError(.providerError, "GitHub's token answer (status \(response.status)) has no access_token")
        }
        return token
    }

    private func checkTokenBelongsToUs(_ token: String) async throws(ProviderError) {
        let credentials = Data("\(self.settings.clientID):\(self.settings.clientSecret)".utf8).base64EncodedString()
        let body = JSONValue.object([("access_token", .string(token))]).canonicalBytes
        let request = OutboundRequest(
            method: "POST",
            url: "\(self.settings.apiURL)/applications/\(self.settings.clientID)/token",
            headers: Self.apiHeaders + [
                ("Authorization", "Basic \(credentials)"), ("Content-Type", "application/json"),
            ],
            body: body
        )
        let answer = try await self.fetcher.fetch(request).successObject(rejected: .providerError)
        guard answer["app"]?["client_id"]?.stringValue == self.settings.clientID else {
            throw ProviderError(.appIDMismatch, "the access token was issued to another GitHub app")
        }
    }

    private func api(_ path: String, token: String) async throws(ProviderError) -> OutboundResponse {
        try await self.fetcher.fetch(
            OutboundRequest(
                url: self.settings.apiURL + path,
                headers: Self.apiHeaders + [("Authorization", "Bearer \(token)")]
            )
        )
    }

    static let apiHeaders: [(name: String, value: String)] = [
        ("Accept", "application/vnd.github+json"), ("X-GitHub-Api-Version", "2022-11-28"),
    ]
}
