public import AuthlogCore

/// Sign-in alerts (`alerts` and `places` in the configuration, docs/signin.md "Sign-in alerts"): whether sign-ins
/// are judged, the rules, and the operator's MaxMind DB files (nil: places are off, devices are still judged).
public struct SigninAlertSettings: Sendable {
    /// Whether sign-ins are judged at all (default true).
    public var enabled = true
    /// The judge's settings and each judgement's policy.
    public var rules = SigninAlertRules()
    /// Where the operator's files place an address; nil without a `places.city_database`.
    public var places: (any AddressPlaces)?

    /// The defaults: on, every judgement recorded, no places.
    public init() {}
}
