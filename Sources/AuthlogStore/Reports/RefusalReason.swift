/// How the `failures` report names the requests refused without a sign-in event of their own (migration 19,
/// `authlog.refusal_items`): a prefix naming what refused them, then the route group, the kind or the reason.
/// Their counts are the requests the aggregated events account for (`data.count`, or `data.counts` /
/// `data.reasons` per kind; 1 when absent), not the number of events.
public enum RefusalReason {
    /// `ratelimit.exceeded` by route group: `rate_limited:signin`, `rate_limited:refresh`, `rate_limited:audit`….
    public static let rateLimited = "rate_limited:"
    /// `request.refused` by kind: `request_refused:malformed`, `request_refused:too_large`….
    public static let requestRefused = "request_refused:"
    /// A refused `audit.accessed` by reason: `audit_refused:missing_api_key`, `audit_refused:insufficient_scope`….
    public static let auditRefused = "audit_refused:"

    /// Every prefix, in the order reports explain them.
    public static let prefixes = [Self.rateLimited, Self.requestRefused, Self.auditRefused]

    /// Whether a `failures` report's reason is a refused request rather than a failed sign-in.
    public static func isRefusal(_ reason: String) -> Bool {
        Self.prefixes.contains { reason.hasPrefix($0) }
    }
}
