import AuthlogCore

/// The events' MACs as `verify` walks them: with the event key each MAC must verify; with or without it, once
/// an event carries a MAC every later one must (events from before the key form a prefix without).
struct MACTally {
    /// Events without a MAC, all before the first with one (0 when none has one: the log does not
    /// authenticate its events).
    var unauthenticated: Int64 { self.authenticated == 0 ? 0 : self.unmarked }
    private var unmarked: Int64 = 0
    /// Events with a MAC.
    private(set) var authenticated: Int64 = 0

    /// The problem with `event`'s MAC, if any; `verifies` says whether the MAC verified under the event key (nil
    /// without a MAC or without the key).
    mutating func check(_ event: RecordedEvent, hasMAC: Bool, verifies: Bool?) -> LogVerifier.Report? {
        guard hasMAC else {
            if self.authenticated > 0 {
                return .broken(
                    position: event.position,
                    reason: "unauthenticated: the event has no MAC though events before it carry one "
                        + "(forged, or written without the event key)"
                )
            }
            self.unmarked += 1
            return nil
        }
        if verifies == false {
            return .broken(
                position: event.position,
                reason: "forged: the event's MAC does not verify under the event key"
            )
        }
        self.authenticated += 1
        return nil
    }
}
