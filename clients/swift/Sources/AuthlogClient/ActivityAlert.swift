public import Foundation

/// What a `signin.flagged` entry of the user's activity says: which sign-in (or refresh) authlog judged unusual,
/// why, what it did, and where from. The entry's own id is what ``AuthlogClient/reportNotMe(eventID:)`` takes.
///
/// This is how the user learns of a sign-in they did not make: the `signin_alert` of a token answer reaches
/// the device that signed in (the intruder's), while this entry reaches every device of the account.
public struct ActivityAlert: Sendable, Hashable {
    /// The id of the `signin.succeeded` or `token.refreshed` that was judged (or of its `signin.failed` or
    /// `token.refresh_failed` when the policy refused it).
    public let judgedEventID: String
    /// What authlog found unusual, at least one kind, in authlog's order.
    public let judgements: [SigninAlert.Judgement]
    /// What authlog did: `recorded` (let through), `reauthenticated`, `reauthentication_required` or `denied`.
    public let decision: String
    /// The ISO country code of the judged request's address, when the server looks places up.
    public let country: String?
    /// The region (ISO 3166-2 subdivision code) of that address, when known.
    public let region: String?
    /// The device's family, such as `Safari on iOS`.
    public let deviceFamily: String?

    /// Whether authlog let the judged sign-in or refresh through (`recorded`, `reauthenticated`).
    public var wasAdmitted: Bool { self.decision == "recorded" || self.decision == "reauthenticated" }
}

/// The activity entry's `alert` member, decoded without ever failing the page: ``alert`` is `nil` when it is
/// not an object, names no judged event, has no judgement or no decision. Unknown kinds are kept.
struct ActivityAlertMember: Decodable {
    let alert: ActivityAlert?

    private enum CodingKeys: String, CodingKey {
        case judgedEventID = "judged_event_id"
        case judgements
        case decision
        case country
        case region
        case deviceFamily = "device_family"
    }

    private struct Judgement: Decodable {
        let kind: String
    }

    init(from decoder: any Decoder) {
        self.alert = try? Self.alert(from: decoder)
    }

    private static func alert(from decoder: any Decoder) throws -> ActivityAlert? {
        let object = try decoder.container(keyedBy: CodingKeys.self)
        let judged = try object.decode(String.self, forKey: .judgedEventID)
        let kinds = try object.decode([Judgement].self, forKey: .judgements).map(\.kind)
        let decision = try object.decode(String.self, forKey: .decision)
        guard !judged.isEmpty, !kinds.isEmpty, !kinds.contains(where: \.isEmpty), !decision.isEmpty else { return nil }
        return ActivityAlert(
            judgedEventID: judged,
            judgements: kinds.map(SigninAlert.Judgement.init(rawValue:)),
            decision: decision,
            country: try? object.decodeIfPresent(String.self, forKey: .country),
            region: try? object.decodeIfPresent(String.self, forKey: .region),
            deviceFamily: try? object.decodeIfPresent(String.self, forKey: .deviceFamily)
        )
    }
}
