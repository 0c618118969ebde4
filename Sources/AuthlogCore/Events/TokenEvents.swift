public import Foundation

/// The lifetime class of a refresh token.
public enum RefreshTokenKind: String, Codable, Sendable {
    /// A long-lived "remember me" token that signs the user in again on the next launch.
    case rememberMe = "remember_me"
    /// A token that lives only as long as the session's short absolute limit.
    case session
}

/// An access/refresh pair was minted (`token.issued`). Only ids and hashes are stored, never tokens.
public struct TokenIssued: EventPayload {
    public static let eventType = EventType.tokenIssued
    /// The access token's `jti`.
    public var accessTokenID: UUID
    /// When the access token expires.
    public var accessTokenExpiresAt: Timestamp
    /// The refresh token's id, if one was issued.
    public var refreshTokenID: UUID?
    /// Hex SHA-256 of the refresh token.
    public var refreshTokenHash: String?
    /// The rotation family the refresh token starts.
    public var familyID: UUID?
    /// When the refresh token expires.
    public var refreshTokenExpiresAt: Timestamp?
    /// Whether the refresh token is a "remember me" token.
    public var kind: RefreshTokenKind
    /// The RFC 7638 thumbprint of the DPoP key (RFC 9449) the family and the access token are bound to, when
    /// the sign-in carried a proof.
    public var dpopJKT: String?

    /// Creates the payload.
    public init(
        accessTokenID: UUID,
        accessTokenExpiresAt: Timestamp,
        refreshTokenID: UUID? = nil,
        refreshTokenHash: String? = nil,
        familyID: UUID? = nil,
        refreshTokenExpiresAt: Timestamp? = nil,
        kind: RefreshTokenKind = .rememberMe,
        dpopJKT: String? = nil
    ) {
        self.dpopJKT = dpopJKT
        self.accessTokenID = accessTokenID
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshTokenID = refreshTokenID
        self.refreshTokenHash = refreshTokenHash
        self.familyID = familyID
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.kind = kind
    }
}

/// A refresh token rotated (`token.refreshed`): the old one is spent, a new one joins its family.
public struct TokenRefreshed: EventPayload {
    public static let eventType = EventType.tokenRefreshed
    /// The id of the refresh token that was presented.
    public var oldTokenID: UUID
    /// The id of the refresh token that replaces it.
    public var newTokenID: UUID
    /// Hex SHA-256 of the new refresh token.
    public var newTokenHash: String
    /// The rotation family of both.
    public var familyID: UUID
    /// When the new refresh token expires.
    public var refreshTokenExpiresAt: Timestamp
    /// The new access token's `jti`.
    public var accessTokenID: UUID
    /// When the new access token expires.
    public var accessTokenExpiresAt: Timestamp
    /// Whether the family is a "remember me" family.
    public var kind: RefreshTokenKind
    /// The thumbprint of the DPoP key the family is bound to (and whose proof this refresh carried), when bound.
    public var dpopJKT: String?

    /// Creates the payload.
    public init(
        oldTokenID: UUID,
        newTokenID: UUID,
        newTokenHash: String,
        familyID: UUID,
        refreshTokenExpiresAt: Timestamp,
        accessTokenID: UUID,
        accessTokenExpiresAt: Timestamp,
        kind: RefreshTokenKind = .rememberMe,
        dpopJKT: String? = nil
    ) {
        self.dpopJKT = dpopJKT
        self.oldTokenID = oldTokenID
        self.newTokenID = newTokenID
        self.newTokenHash = newTokenHash
        self.familyID = familyID
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.accessTokenID = accessTokenID
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.kind = kind
    }
}

/// An expired or revoked refresh token was presented, or one refused for its DPoP proof or by the alerts'
/// policy (`token.refresh_failed`). Logs written before unknown tokens were counted by address also hold it with
/// `unknown_token` (on `signin-unknown`, without a token id).
public struct TokenRefreshFailed: EventPayload {
    public static let eventType = EventType.tokenRefreshFailed
    /// `expired`, `revoked`, `session_expired`, a DPoP reason, …
    public var reason: String
    /// The token's id (absent only in older logs' `unknown_token`).
    public var tokenID: UUID?

    /// Creates the payload.
    public init(reason: String, tokenID: UUID? = nil) {
        self.reason = reason
        self.tokenID = tokenID
    }
}

/// A rotated refresh token was presented again; its whole family is revoked (`token.reuse_detected`).
public struct TokenReuseDetected: EventPayload {
    public static let eventType = EventType.tokenReuseDetected
    /// The id of the token that was presented again.
    public var tokenID: UUID
    /// The family that is revoked.
    public var familyID: UUID

    /// Creates the payload.
    public init(tokenID: UUID, familyID: UUID) {
        self.tokenID = tokenID
        self.familyID = familyID
    }
}

/// A token was revoked explicitly (`token.revoked`, RFC 7009 or an admin).
public struct TokenRevoked: EventPayload {
    public static let eventType = EventType.tokenRevoked
    /// The revoked token's id.
    public var tokenID: UUID
    /// `refresh_token` or `access_token`.
    public var tokenKind: String
    /// Why it was revoked.
    public var reason: String
    /// Who revoked it (`client:<id>`, `admin:<key id>`, …).
    public var actor: String
    /// The rotation family that ends with it; when set, the whole family and its session end, so the
    /// session's access tokens turn inactive too (RFC 7009 §2.1).
    public var familyID: UUID?

    /// Creates the payload.
    public init(
        tokenID: UUID,
        tokenKind: String = "refresh_token",
        reason: String,
        actor: String,
        familyID: UUID? = nil
    ) {
        self.tokenID = tokenID
        self.tokenKind = tokenKind
        self.reason = reason
        self.actor = actor
        self.familyID = familyID
    }
}

/// A spent refresh token was presented again within the grace window while its successor was still unspent,
/// and was answered with the successor pair its rotation had issued (`token.refresh_replayed`). Nothing is
/// minted and nothing changes: the event records who got the pair again.
public struct TokenRefreshReplayed: EventPayload {
    public static let eventType = EventType.tokenRefreshReplayed
    /// The id of the spent token that was presented again.
    public var tokenID: UUID
    /// The rotation family.
    public var familyID: UUID
    /// The `event_id` of the `token.refreshed` event whose answer was given again.
    public var refreshedEventID: UUID
    /// The id of the refresh token given again (the successor).
    public var newTokenID: UUID
    /// The `jti` of the access token given again.
    public var accessTokenID: UUID

    /// Creates the payload.
    public init(tokenID: UUID, familyID: UUID, refreshedEventID: UUID, newTokenID: UUID, accessTokenID: UUID) {
        self.tokenID = tokenID
        self.familyID = familyID
        self.refreshedEventID = refreshedEventID
        self.newTokenID = newTokenID
        self.accessTokenID = accessTokenID
    }
}
