import AuthlogCore
import AuthlogCrypto
import Foundation

/// A provider whose grant to our app can be revoked from the server at account deletion (providers.md):
/// Apple `/auth/revoke`, GitHub `DELETE /applications/{client_id}/grant`, Kakao unlink with the admin key.
public protocol GrantRevoking: IdentityProvider {
    /// Revokes the grant that `credential` stands for (what ``VerifiedIdentity/revocationCredential`` held);
    /// `clientID` is the client the credential was issued to, when known.
    /// - Throws: ``ProviderError``: `.providerUnavailable` when the provider cannot be reached or answers
    ///   5xx, `.providerError` when it refuses.
    func revokeGrant(credential: String, clientID: String?) async throws(ProviderError)
}

extension OutboundResponse {
    /// Succeeds for a 2xx answer; 5xx is `.providerUnavailable`, anything else `.providerError`.
    /// - Throws: ``ProviderError``.
    func requireSuccess() throws(ProviderError) {
        if self.status >= 500 {
            throw ProviderError(.providerUnavailable, "the provider answered with status \(self.status)")
        }
        guard (200..<300).contains(self.status) else {
            throw ProviderError(.providerError, "the provider refused with status \(self.status)")
        }
    }
}

extension AppleProvider: GrantRevoking {
    /// `POST /auth/revoke` with the refresh token and a fresh client secret (App Store Review 5.1.1(v)).
    public func revokeGrant(credential: String, clientID: String?) async throws(ProviderError) {
        guard let clientID = clientID ?? self.settings.clientIDs.sorted().first else {
            throw ProviderError(.providerError, "no Apple client id is configured")
        }
        let fields: [(name: String, value: String)] = [
            ("client_id", clientID), ("client_secret", try self.makeClientSecret(clientID: clientID)),
            ("token", credential), ("token_type_hint", "refresh_token"),
        ]
        try await self.fetcher.fetch(.form(url: self.settings.revokeURL, fields: fields)).requireSuccess()
    }
}

extension GitHubProvider: GrantRevoking {
    /// `DELETE /applications/{client_id}/grant`: the grant and every token of it (204).
    public func revokeGrant(credential: String, clientID: String?) async throws(ProviderError) {
        let basic = Data("\(self.settings.clientID):\(self.settings.clientSecret)".utf8).base64EncodedString()
        let request = OutboundRequest(
            method: "DELETE",
            url: "\(self.settings.apiURL)/applications/\(self.settings.clientID)/grant",
            headers: Self.apiHeaders + [("Authorization", "Basic \(basic)"), ("Content-Type", "application/json")],
            body: JSONValue.object([("access_token", .string(credential))]).canonicalBytes
        )
        try await self.fetcher.fetch(request).requireSuccess()
    }
}

extension KakaoProvider: GrantRevoking {
    /// `POST /v1/user/unlink` with `Authorization: KakaoAK <admin key>` and the user's id.
    public func revokeGrant(credential: String, clientID: String?) async throws(ProviderError) {
        guard let adminKey = self.settings.adminKey else {
            throw ProviderError(.providerError, "no Kakao admin key is configured")
        }
        let request = OutboundRequest.form(
            url: self.settings.unlinkURL,
            fields: [("target_id_type", "user_id"), ("target_id", credential)],
            headers: [("Authorization", "KakaoAK \(adminKey)")]
        )
        try await self.fetcher.fetch(request).requireSuccess()
    }

    /// Whether `header` is `KakaoAK <admin key>` (constant time), for Kakao's unlink callback.
    public func isAdminAuthorization(_ header: String?) -> Bool {
        // An empty key would make an empty header match: no key configured means no callback is accepted.
        guard let adminKey = self.settings.adminKey, !adminKey.isEmpty, let header, header.hasPrefix("KakaoAK ")
        else { return false }
        return ConstantTime.equals(Array(header.utf8.dropFirst(8)), Array(adminKey.utf8))
    }

    /// Whether `appID` is this app's numeric id.
    public func isOurApp(_ appID: String?) -> Bool { appID == self.settings.appID }
}
