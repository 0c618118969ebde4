public import AuthlogCore
public import Foundation

/// An Apple server-to-server notification whose JWT verified (providers.md §1): signed with Apple's key,
/// `iss` Apple, `aud` one of our client ids, `iat` recent; `events` is a JSON string holding the notice.
public struct AppleNotification: Sendable, Equatable {
    /// `email-disabled`, `email-enabled`, `consent-revoked` or `account-delete`.
    public var type: String
    /// The Apple user's `sub`.
    public var subject: String
    /// The notification's `jti`, for dropping duplicates.
    public var noticeID: String
    /// When the event happened at Apple, if it said (`event_time`, milliseconds).
    public var eventTime: Timestamp?

    /// The type as a kind authlog acts on; `nil` for a type it only records.
    public var kind: AppleNotificationKind? { AppleNotificationKind(rawValue: self.type) }
}

/// The `type`s of Apple's server-to-server notifications, spelled as Apple sends them.
public enum AppleNotificationKind: String, Sendable, CaseIterable {
    /// The user stopped using Sign in with Apple with the app.
    case consentRevoked = "consent-revoked"
    /// The user deleted their Apple account.
    case accountDelete = "account-delete"
    /// The user turned email forwarding off.
    case emailDisabled = "email-disabled"
    /// The user turned email forwarding on.
    case emailEnabled = "email-enabled"
}

extension AppleProvider {
    /// Verifies the `payload` JWT of a server-to-server notification at `now`; `maximumAge` bounds `iat`.
    /// - Throws: ``ProviderError`` with the reason of the first failed check.
    public func verifyNotification(
        _ payload: String,
        maximumAge: Int64 = 3_600,
        now: Date = Date()
    ) async throws(ProviderError) -> AppleNotification {
        let claims = try await self.verifier.verifiedPayload(payload)
        let rules = self.verifier.rules
        guard let issuer = claims["iss"]?.stringValue,
            rules.issuers.contains(where: { $0.utf8.elementsEqual(issuer.utf8) })
        else { throw ProviderError(.issuerMismatch, "the notification's issuer is not Apple") }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let single)?: audiences = [single]
        case .array(let many)?: audiences = many.compactMap(\.stringValue)
        default: throw ProviderError(.invalidClaim, "aud must be a string or an array of strings")
        }
        guard audiences.contains(where: { rules.audiences.contains($0) }) else {
            throw ProviderError(.audienceMismatch, "the notification is not for one of our client ids")
        }
        guard let iat = try IDTokenVerifier.numericDate(claims, "iat") else {
            throw ProviderError(.invalidClaim, "iat must be an integer")
        }
        let nowSeconds = Timestamp(now).microsecondsSinceEpoch / 1_000_000
        let leeway = min(max(rules.leeway, 0), 86_400)
        guard iat <= nowSeconds + leeway else { throw ProviderError(.issuedInFuture, "iat lies in the future") }
        guard nowSeconds - iat <= min(max(maximumAge, 0), 10 * 366 * 86_400) + leeway else {
            throw ProviderError(.tooOld, "the notification is older than \(maximumAge) seconds")
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty, jti.utf8.count <= 200 else {
            throw ProviderError(.invalidClaim, "jti must be a non-empty string of at most 200 bytes")
        }
        guard let eventsText = claims["events"]?.stringValue,
            let events = try? JSONParser(maximumDepth: 4).parse(eventsText), events.isObject
        else { throw ProviderError(.invalidClaim, "events must be a JSON object in a string") }
        guard let type = events["type"]?.stringValue, !type.isEmpty, type.utf8.count <= 64 else {
            throw ProviderError(.invalidClaim, "events.type must be a short string")
        }
        guard let subject = events["sub"]?.stringValue, !subject.isEmpty, subject.utf8.count <= 255 else {
            throw ProviderError(.invalidClaim, "events.sub must be a non-empty string")
        }
        var eventTime: Timestamp?
        if let milliseconds = events["event_time"]?.integerValue, (0...253_402_300_799_999).contains(milliseconds) {
            eventTime = Timestamp(microsecondsSinceEpoch: milliseconds * 1_000)
        }
        return AppleNotification(type: type, subject: subject, noticeID: jti, eventTime: eventTime)
    }
}
