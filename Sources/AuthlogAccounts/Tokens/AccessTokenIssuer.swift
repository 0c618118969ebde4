import AuthlogCore
public import AuthlogCrypto
public import Foundation

/// The claims authlog puts in its access tokens (RFC 9068, `typ: at+jwt`).
public struct AccessTokenClaims: Sendable, Equatable {
    /// `jti`.
    public var tokenID: UUID
    /// `sub`: authlog's user id.
    public var userID: UUID
    /// `sid`: the session.
    public var sessionID: UUID
    /// `client_id`, when the app named itself.
    public var clientID: String?
    /// `iat` and `exp`, in seconds.
    public var issuedAt: Int64
    /// `exp`, in seconds.
    public var expiresAt: Int64
    /// `cnf.jkt` (RFC 9449 §6.1): the RFC 7638 thumbprint of the DPoP key the token is bound to; a request
    /// with it must carry a proof by that key.
    public var dpopJKT: String?
}

/// Signs and checks authlog's access tokens: ES256 JWTs with `typ: at+jwt`, authlog's `kid`, its `iss`
/// and `aud`, published at `/.well-known/jwks.json`.
public struct AccessTokenIssuer: Sendable {
    /// The media type in the header; a refresh token or a provider's ID token never carries it.
    public static let tokenType = "at+jwt"

    private let signer: JWSSigner
    private let verifier: JWSVerifier
    /// `iss`.
    public let issuer: String
    /// `aud`.
    public let audience: String
    /// The public key set to publish.
    public let publicKeys: JWKSet

    /// Creates an issuer around an ES256 key; the `kid` is derived from the public key. `previousKeys` are keys
    /// it signed with before a rotation: still published and still accepted (their tokens run out within one
    /// access-token lifetime), never signed with.
    /// - Throws: ``CryptoError`` when a key is not ES256 or cannot be exported.
    public init(key: PrivateKey, previousKeys: [PublicKey] = [], issuer: String, audience: String) throws(CryptoError) {
        guard key.algorithm == .es256 else { throw CryptoError(.keyMismatch, "access tokens are signed with ES256") }
        let publicKey = try key.publicKey()
        let kid = try Self.keyID(of: publicKey)
        self.signer = JWSSigner(key: key, kid: kid)
        var published = [JWK(key: publicKey, kid: kid)]
        for previous in previousKeys {
            guard previous.algorithm == .es256 else {
                throw CryptoError(.keyMismatch, "a previous access-token key must be an ES256 key too")
            }
            let previousID = try Self.keyID(of: previous)
            guard !published.contains(where: { $0.kid == previousID }) else { continue }
            published.append(JWK(key: previous, kid: previousID))
        }
        self.publicKeys = JWKSet(keys: published)
        self.verifier = JWSVerifier(algorithm: .es256, keys: self.publicKeys)
        self.issuer = issuer
        self.audience = audience
    }

    /// The `kid` of `key`: the first 16 characters of the base64url SHA-256 of its SubjectPublicKeyInfo PEM.
    /// - Throws: ``CryptoError`` when the key cannot be exported.
    public static func keyID(of key: PublicKey) throws(CryptoError) -> String {
        String(Base64URL.encode(SHA256.hash(Array(try key.pemRepresentation().utf8))).prefix(16))
    }

    /// The `kid` new tokens are signed under.
    public var currentKeyID: String { self.signer.kid ?? "" }

    /// Signs an access token for `claims`.
    /// - Throws: ``CryptoError`` if signing fails.
    public func sign(_ claims: AccessTokenClaims) throws(CryptoError) -> String {
        var members: [(name: String, value: JSONValue)] = [
            ("iss", .string(self.issuer)), ("sub", .string(claims.userID.lowercased)),
            ("aud", .string(self.audience)), ("exp", .number(String(claims.expiresAt))),
            ("iat", .number(String(claims.issuedAt))), ("jti", .string(claims.tokenID.lowercased)),
            ("sid", .string(claims.sessionID.lowercased)),
        ]
        if let clientID = claims.clientID { members.append(("client_id", .string(clientID))) }
        if let jkt = claims.dpopJKT { members.append(("cnf", .object([("jkt", .string(jkt))]))) }
        return try self.signer.sign(.object(members), type: Self.tokenType)
    }

    /// Checks signature, `typ`, `iss`, `aud` and `exp` (no leeway: authlog's own clock) and returns the claims.
    /// - Throws: ``AccessTokenError`` naming what failed.
    public func verify(_ token: String, now: Date = Date()) throws(AccessTokenError) -> AccessTokenClaims {
        let verified: VerifiedJWS
        do {
            verified = try self.verifier.verify(token)
        } catch {
            throw AccessTokenError(reason: error.code.rawValue)
        }
        guard verified.header["typ"]?.stringValue == Self.tokenType else {
            throw AccessTokenError(reason: "wrong_type")
        }
        let claims = verified.payload
        guard claims["iss"]?.stringValue == self.issuer, claims["aud"]?.stringValue == self.audience else {
            throw AccessTokenError(reason: "wrong_issuer_or_audience")
        }
        guard let exp = claims["exp"]?.integerValue, let iat = claims["iat"]?.integerValue,
            let sub = claims["sub"]?.stringValue.flatMap(UUID.init(canonical:)),
            let sid = claims["sid"]?.stringValue.flatMap(UUID.init(canonical:)),
            let jti = claims["jti"]?.stringValue.flatMap(UUID.init(canonical:))
        else { throw AccessTokenError(reason: "malformed") }
        guard Timestamp(now).microsecondsSinceEpoch / 1_000_000 < exp else { throw AccessTokenError(reason: "expired") }
        var jkt: String?
        if let confirmation = claims["cnf"] {
            guard let value = confirmation["jkt"]?.stringValue else { throw AccessTokenError(reason: "malformed") }
            jkt = value
        }
        return AccessTokenClaims(
            tokenID: jti,
            userID: sub,
            sessionID: sid,
            clientID: claims["client_id"]?.stringValue,
            issuedAt: iat,
            expiresAt: exp,
            dpopJKT: jkt
        )
    }
}

/// Why an access token was refused.
public struct AccessTokenError: Error, Sendable, Equatable {
    /// A machine-readable reason (`expired`, `invalid_signature`, `wrong_type`, …).
    public let reason: String
}
