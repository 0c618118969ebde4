public import AuthlogCore
import AuthlogCrypto
public import Foundation

/// The claims of an identity token that passed every common check.
public struct VerifiedIDToken: Sendable {
    /// The whole payload.
    public let claims: JSONValue
    /// `sub`.
    public let subject: String
    /// The `aud` member that matched (or `azp` for a multi-audience token).
    public let clientID: String
    /// `auth_time`, when present.
    public let authTime: Timestamp?
    /// `nonce`, when present.
    public let nonce: String?

    /// Runs one of the provider's own checks on this token, whose signature, issuer and audience verified: a
    /// failure names the subject the provider vouched for (it counts toward the identity's lockout).
    /// - Throws: what `check` throws, vouched for ``subject``.
    public func vouching<Value>(_ check: () throws(ProviderError) -> Value) throws(ProviderError) -> Value {
        do {
            return try check()
        } catch {
            throw error.vouched(for: self.subject)
        }
    }
}

/// Verifies identity tokens of one issuer: the common JWT pipeline of providers.md §0.
///
/// Signature with the pinned algorithm and a key from ``JWKSCache`` (one refetch when the `kid` is unknown
/// or its key fails, as when a provider rotates material under the same `kid`), then `exp`, `nbf`, `iat`,
/// `iss`, `aud` and `azp`.
public struct IDTokenVerifier: Sendable {
    /// The rules tokens must satisfy.
    public let rules: IDTokenRules
    /// Where the keys come from.
    public let keys: JWKSCache

    /// Creates a verifier.
    public init(rules: IDTokenRules, keys: JWKSCache) {
        self.rules = rules
        self.keys = keys
    }

    /// Verifies `token` at time `now`.
    /// - Throws: ``ProviderError`` naming the first check that failed.
    public func verify(_ token: String, now: Date = Date()) async throws(ProviderError) -> VerifiedIDToken {
        // A token without kid is checked with the set's one key of the pinned algorithm (OIDC Core §10.1);
        // with several, JWSVerifier refuses it (`missing_kid` → malformed).
        let verified = try await self.verifySignature(token)
        return try self.checkClaims(verified.payload, now: Timestamp(now).microsecondsSinceEpoch / 1_000_000)
    }

    /// The payload of `token` once its signature verifies with one of the issuer's keys (pinned algorithm,
    /// one refetch for an unknown `kid`); no claim is checked. For signed messages that are not identity
    /// tokens, such as Apple's server-to-server notifications.
    /// - Throws: ``ProviderError`` naming the JOSE failure.
    public func verifiedPayload(_ token: String) async throws(ProviderError) -> JSONValue {
        try await self.verifySignature(token).payload
    }

    private func verifySignature(_ token: String) async throws(ProviderError) -> VerifiedJWS {
        let current = try await self.keys.currentKeys()
        do {
            return try JWSVerifier(algorithm: self.rules.algorithm, keys: current).verify(token)
        } catch  where error.code == .unknownKid || error.code == .invalidSignature {
            guard let refreshed = try await self.keys.refetchForUnknownKey() else { throw Self.map(error) }
            do {
                return try JWSVerifier(algorithm: self.rules.algorithm, keys: refreshed).verify(token)
            } catch {
                throw Self.map(error)
            }
        } catch {
            throw Self.map(error)
        }
    }

    /// The `signin.failed` reason for a JOSE failure.
    static func map(_ error: CryptoError) -> ProviderError {
        let reason: ProviderError.Reason =
            switch error.code {
            case .unsupportedAlg: .unsupportedAlg
            case .invalidSignature: .invalidSignature
            case .unknownKid: .unknownKid
            case .forbiddenHeader: .forbiddenHeader
            case .duplicateMember: .duplicateMember
            case .tooLarge: .tooLarge
            case .weakKey, .invalidKey, .keyMismatch: .invalidKey
            default: .malformed
            }
        return ProviderError(reason, error.message)
    }

    /// The NumericDate claims are accepted only from 1970 to 9999 (0…253,402,300,799 s), and leeway and
    /// maximum age are clamped to a day and ten years, so no comparison below can overflow, whatever a
    /// signed token carries.
    static let numericDateRange: ClosedRange<Int64> = 0...253_402_300_799

    /// A NumericDate claim (RFC 7519 §2); `nil` when absent.
    /// - Throws: ``ProviderError`` `.invalidClaim` when it is not a whole number in ``numericDateRange``.
    static func numericDate(_ claims: JSONValue, _ name: String) throws(ProviderError) -> Int64? {
        guard let value = claims[name] else { return nil }
        guard let seconds = value.integerValue else { throw ProviderError(.invalidClaim, "\(name) must be an integer") }
        guard Self.numericDateRange.contains(seconds) else {
            throw ProviderError(.invalidClaim, "\(name) is outside the years 1970 to 9999")
        }
        return seconds
    }

    private func checkClaims(_ claims: JSONValue, now unclampedNow: Int64) throws(ProviderError) -> VerifiedIDToken {
        let now = min(max(unclampedNow, Self.numericDateRange.lowerBound), Self.numericDateRange.upperBound)
        // The time claims are checked first, as always; a token that fails them while its issuer and audience
        // are the provider's was vouched for by the provider (its signature verified already), so the failure
        // names the subject and counts toward that identity's lockout — unless it is stale (``isRecent``): a
        // proof that expired long ago is a replay, not an attempt at the identity, and counts only against the
        // address, like a forged one.
        let authTime: Timestamp?
        do {
            authTime = try self.checkTimes(claims, now: now)
        } catch {
            if self.isRecent(claims, now: now), let vouched = try? self.checkIdentity(claims) {
                throw error.vouched(for: vouched.subject)
            }
            throw error
        }
        let (clientID, subject) = try self.checkIdentity(claims)
        var nonce: String?
        if let nonceValue = claims["nonce"] {
            guard let text = nonceValue.stringValue else {
                throw ProviderError(.invalidClaim, "nonce must be a string")
            }
            nonce = text
        }
        return VerifiedIDToken(claims: claims, subject: subject, clientID: clientID, authTime: authTime, nonce: nonce)
    }

    /// The longest token lifetime ``isRecent(_:now:)`` takes from a token: a day.
    static let maximumLifetime: Int64 = 86_400

    /// Whether a token that failed its time checks could still be an attempt at its subject's identity: it
    /// expired within its own lifetime (`exp − iat` as the provider signed it, at most ``maximumLifetime``) plus
    /// the leeway, or has not expired. A token whose `exp` cannot be read cannot show that.
    func isRecent(_ claims: JSONValue, now: Int64) -> Bool {
        guard let exp = try? Self.numericDate(claims, "exp") else { return false }
        let iat = try? Self.numericDate(claims, "iat")
        let lifetime = min(max(iat.map { exp - $0 } ?? 0, 0), Self.maximumLifetime)
        let leeway = min(max(self.rules.leeway, 0), 86_400)
        return now < exp + lifetime + leeway
    }

    /// `exp`, `nbf`, `iat`, the maximum age and `auth_time`; returns `auth_time`.
    private func checkTimes(_ claims: JSONValue, now: Int64) throws(ProviderError) -> Timestamp? {
        let leeway = min(max(self.rules.leeway, 0), 86_400)
        guard let exp = try Self.numericDate(claims, "exp") else {
            throw ProviderError(.invalidClaim, "exp must be an integer")
        }
        guard now < exp + leeway else { throw ProviderError(.expired, "the token has expired") }
        if let nbf = try Self.numericDate(claims, "nbf") {
            guard now >= nbf - leeway else { throw ProviderError(.notYetValid, "the token is not valid yet") }
        }
        guard let iat = try Self.numericDate(claims, "iat") else {
            throw ProviderError(.invalidClaim, "iat must be an integer")
        }
        guard iat <= now + leeway else { throw ProviderError(.issuedInFuture, "the token was issued in the future") }
        if let maximumAge = self.rules.maximumAge.map({ min(max($0, 0), 10 * 366 * 86_400) }),
            now - iat > maximumAge + leeway
        {
            throw ProviderError(.tooOld, "the token is older than \(maximumAge) seconds")
        }
        guard let seconds = try Self.numericDate(claims, "auth_time") else { return nil }
        guard seconds <= now + leeway else { throw ProviderError(.invalidClaim, "auth_time lies in the future") }
        return Timestamp(microsecondsSinceEpoch: seconds * 1_000_000)
    }

    /// `iss`, `aud`/`azp` and `sub`: whether the provider issued the token for us, and for whom.
    private func checkIdentity(_ claims: JSONValue) throws(ProviderError) -> (clientID: String, subject: String) {
        guard let issuer = claims["iss"]?.stringValue,
            self.rules.issuers.contains(where: { $0.utf8.elementsEqual(issuer.utf8) })
        else { throw ProviderError(.issuerMismatch, "the token's issuer is not this provider's") }
        let clientID = try self.checkAudience(claims)
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
            throw ProviderError(.invalidClaim, "sub must be a non-empty string")
        }
        return (clientID, subject)
    }

    private func checkAudience(_ claims: JSONValue) throws(ProviderError) -> String {
        let audiences: [String]
        switch claims["aud"] {
        case .string(let single)?: audiences = [single]
        case .array(let many)?:
            audiences = many.compactMap(\.stringValue)
            guard audiences.count == many.count, !audiences.isEmpty else {
                throw ProviderError(.invalidClaim, "aud must be a string or an array of strings")
            }
        default: throw ProviderError(.invalidClaim, "aud must be a string or an array of strings")
        }
        guard let matched = audiences.first(where: { self.rules.audiences.contains($0) }) else {
            throw ProviderError(.audienceMismatch, "the token is not for one of our client ids")
        }
        let azp = claims["azp"]
        if azp != nil, azp?.stringValue == nil { throw ProviderError(.invalidClaim, "azp must be a string") }
        if audiences.count > 1 {
            guard let presenter = azp?.stringValue else {
                throw ProviderError(.azpMissing, "a token with several audiences must name its azp")
            }
            guard self.rules.audiences.contains(presenter) else {
                throw ProviderError(.azpMismatch, "the token's azp is not one of our client ids")
            }
            return presenter
        }
        if let presenter = azp?.stringValue, !self.rules.audiences.contains(presenter) {
            throw ProviderError(.azpMismatch, "the token's azp is not one of our client ids")
        }
        return matched
    }
}
