/// What a sign-in judged unusual leads to (`alerts.policies`, docs/signin.md "Sign-in alerts").
public enum SigninAlertPolicy: String, Sendable, Codable, CaseIterable, Comparable {
    /// The sign-in goes through; the judgement is recorded (`signin.flagged`), answered in `signin_alert`, sent
    /// to the sinks and shown in the user's activity.
    case record
    /// The sign-in goes through only with a fresh provider proof: one whose `auth_time` is within
    /// `account.reauthentication_window_seconds`; otherwise 401 `reauthentication_required`.
    case reauthenticate
    /// The sign-in is refused: 401 `signin_unusual`.
    case deny

    /// `record` < `reauthenticate` < `deny`: the strictest of a sign-in's judgements decides.
    public static func < (lhs: SigninAlertPolicy, rhs: SigninAlertPolicy) -> Bool {
        Self.allCases.firstIndex(of: lhs) ?? 0 < Self.allCases.firstIndex(of: rhs) ?? 0
    }
}

/// What was done with a sign-in judged unusual (`signin.flagged`'s `decision`).
public enum SigninAlertDecision: String, Sendable, Codable, CaseIterable {
    /// The sign-in went through (policy `record`).
    case recorded
    /// The sign-in went through with a fresh provider proof (policy `reauthenticate`).
    case reauthenticated
    /// The sign-in was refused for want of a fresh provider proof (policy `reauthenticate`).
    case reauthenticationRequired = "reauthentication_required"
    /// The sign-in was refused (policy `deny`).
    case denied

    /// Whether the sign-in went through.
    public var admits: Bool { self == .recorded || self == .reauthenticated }
}

/// The judge and what each of its findings leads to.
public struct SigninAlertRules: Sendable, Equatable {
    /// The judge's settings.
    public var judge: SigninJudge.Settings
    /// The policy of each kind of judgement (absent: `record`).
    public var policies: [SigninJudgement.Kind: SigninAlertPolicy]
    /// How many of the user's newest sign-ins make the history (default 20: months of a person's sign-ins, since
    /// refreshes keep them signed in between).
    public var historySignins: Int

    /// The most sign-ins a history may read.
    public static let historySigninsRange = 1...200

    /// Creates rules; the defaults record every judgement.
    public init(
        judge: SigninJudge.Settings = SigninJudge.Settings(),
        policies: [SigninJudgement.Kind: SigninAlertPolicy] = [:],
        historySignins: Int = 20
    ) {
        self.judge = judge
        self.policies = policies
        self.historySignins = historySignins
    }

    /// The policy of `kind`.
    public func policy(of kind: SigninJudgement.Kind) -> SigninAlertPolicy { self.policies[kind] ?? .record }

    /// What to do with a sign-in that has `judgements`; nil when there are none. `freshProof` tells whether the
    /// provider proof was made within the re-authentication window.
    public func decision(for judgements: [SigninJudgement], freshProof: Bool) -> SigninAlertDecision? {
        guard let strictest = judgements.map({ self.policy(of: $0.kind) }).max() else { return nil }
        switch strictest {
        case .record: return .recorded
        case .reauthenticate: return freshProof ? .reauthenticated : .reauthenticationRequired
        case .deny: return .denied
        }
    }
}
