import Foundation

/// authlog's token answer (sign-in and refresh).
struct TokenAnswer: Decodable {
    let userID: String
    let sessionID: String
    let isNewUser: Bool?
    let accessToken: String
    let accessTokenExpiresAt: String
    let refreshToken: String
    let refreshTokenExpiresAt: String
    /// `DPoP` when authlog bound the tokens to the proof's key, `Bearer` (or missing, from an older server) otherwise.
    let tokenType: String?
    let eventIDs: [String]?
    /// `signin_alert` as it came; never a reason to refuse the answer.
    private let alertMember: SigninAlertMember?

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case sessionID = "session_id"
        case isNewUser = "is_new_user"
        case accessToken = "access_token"
        case accessTokenExpiresAt = "access_token_expires_at"
        case refreshToken = "refresh_token"
        case refreshTokenExpiresAt = "refresh_token_expires_at"
        case tokenType = "token_type"
        case eventIDs = "event_ids"
        case alertMember = "signin_alert"
    }

    /// The sign-in alert, or `nil` when the answer has none or a malformed one (which is ignored).
    var signinAlert: SigninAlert? { self.alertMember?.alert }

    /// The tokens, or ``AuthlogClientError/Code/invalidResponse`` for times not in authlog's form.
    func tokens(provider: String?) throws -> AuthTokens {
        guard let accessExpiry = WireTime.parse(self.accessTokenExpiresAt),
            let refreshExpiry = WireTime.parse(self.refreshTokenExpiresAt)
        else { throw AuthlogClientError(.invalidResponse, detail: "The token answer's times cannot be read.") }
        return AuthTokens(
            userID: self.userID,
            sessionID: self.sessionID,
            accessToken: self.accessToken,
            accessTokenExpiresAt: accessExpiry,
            refreshToken: self.refreshToken,
            refreshTokenExpiresAt: refreshExpiry,
            provider: provider,
            tokenType: AuthTokens.TokenType(answer: self.tokenType)
        )
    }
}

/// The `signin_alert` member, `{"event_id": "<uuid>", "judgements": ["new_device", …]}`, decoded without ever
/// failing: ``alert`` is `nil` when it is not an object, its `event_id` is not a UUID, or its `judgements` are
/// not one or more non-empty strings. Unknown kinds are kept.
private struct SigninAlertMember: Decodable {
    let alert: SigninAlert?

    private enum CodingKeys: String, CodingKey {
        case eventID = "event_id"
        case judgements
    }

    init(from decoder: any Decoder) {
        self.alert = try? Self.alert(from: decoder)
    }

    private static func alert(from decoder: any Decoder) throws -> SigninAlert? {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        let eventID = try object.decode(String.self, forKey: .eventID)
        let kinds = try object.decode([String].self, forKey: .judgements)
        guard UUID(uuidString: eventID) != nil, !kinds.isEmpty, !kinds.contains(where: \.isEmpty) else { return nil }
        return SigninAlert(eventID: eventID, judgements: kinds.map(SigninAlert.Judgement.init(rawValue:)))
    }
}
